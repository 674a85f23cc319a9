// The replay viewer: read a games.jsonl in the browser, then ask POST /api/replay for each step.
const errorBox = document.getElementById("error");
const gameBox = document.getElementById("game");
const seatBox = document.getElementById("seat");
const where = document.getElementById("where");
const frame = document.getElementById("frame");
let records = [];
let step = 0;
let steps = 0;

function load(text) {
  records = text.split("\n").filter((line) => line.trim() !== "").map((line) => JSON.parse(line));
  gameBox.innerHTML = "";
  records.forEach((record, i) => {
    const option = document.createElement("option");
    option.value = String(i);
    option.textContent = `game ${record.index ?? i}: ${record.game}, ${(record.seating || []).join(" vs ")}`;
    gameBox.append(option);
  });
  chooseGame();
}

function chooseGame() {
  const record = records[Number(gameBox.value)];
  if (!record) return;
  const seats = (record.returns || record.seating || []).length;
  seatBox.innerHTML = '<option value="all">every card shown</option>';
  for (let s = 0; s < seats; s++) seatBox.insertAdjacentHTML("beforeend", `<option value="${s}">player_${s}'s view</option>`);
  show(0);
}

async function show(target) {
  const record = records[Number(gameBox.value)];
  if (!record) return;
  const seat = seatBox.value === "all" ? "all" : Number(seatBox.value);
  const response = await fetch("/api/replay", {method: "POST", headers: {"Content-Type": "application/json"},
                                               body: JSON.stringify({record, seat, step: target})});
  const answer = await response.json();
  if (!response.ok) {
    errorBox.textContent = answer.error;
    return;
  }
  errorBox.textContent = "";
  step = answer.step;
  steps = answer.steps;
  where.textContent = `step ${step} of ${steps}`;
  where.dataset.step = String(step);
  frame.innerHTML = answer.html;
}

document.getElementById("file").addEventListener("change", async (event) => {
  const file = event.target.files[0];
  if (file) load(await file.text());
});
document.getElementById("server-log").addEventListener("click", async () => {
  const answer = await (await fetch("/api/games")).json();
  load(answer.map((record) => JSON.stringify(record)).join("\n"));
});
gameBox.addEventListener("change", chooseGame);
seatBox.addEventListener("change", () => show(step));
document.getElementById("first").addEventListener("click", () => show(0));
document.getElementById("back").addEventListener("click", () => show(Math.max(0, step - 1)));
document.getElementById("forward").addEventListener("click", () => show(Math.min(steps, step + 1)));
document.getElementById("last").addEventListener("click", () => show(steps));
