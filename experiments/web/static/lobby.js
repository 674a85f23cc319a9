// The lobby: start a table through POST /api/tables and list its links (one per person, one to watch).
const form = document.getElementById("lobby");
const errorBox = document.getElementById("error");
const links = document.getElementById("links");

function item(label, url, testid) {
  const li = document.createElement("li");
  const a = document.createElement("a");
  a.href = url;
  a.textContent = url;
  a.dataset.testid = testid;
  li.append(`${label}: `, a);
  return li;
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const data = new FormData(form);
  const people = data.get("people").split(",").map((s) => s.trim()).filter((s) => s !== "");
  const seed = data.get("seed").trim();
  const body = {
    game: data.get("game"),
    options: data.get("options").split("\n").map((s) => s.trim()).filter((s) => s !== ""),
    people: people.map(Number),
    opponents: data.get("opponents").trim(),
    seed: seed === "" ? null : Number(seed),
  };
  const response = await fetch("/api/tables", {method: "POST", headers: {"Content-Type": "application/json"},
                                               body: JSON.stringify(body)});
  const answer = await response.json();
  links.innerHTML = "";
  if (!response.ok) {
    errorBox.textContent = answer.error;
    return;
  }
  errorBox.textContent = "";
  const list = document.createElement("ul");
  for (const [seat, url] of Object.entries(answer.seats)) list.append(item(`player_${seat} (a person)`, url, `seat-link-${seat}`));
  list.append(item("spectators", answer.watch, "watch-link"));
  links.append(`Table ${answer.table}: send each person the link of their seat (it carries the seat's secret token).`, list);
});
