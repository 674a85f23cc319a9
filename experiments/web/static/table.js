// A seat's table: live updates over a WebSocket; moves by their data-action controls or typed text.
const config = JSON.parse(document.getElementById("config").textContent);
const table = document.getElementById("table");
const errorBox = document.getElementById("error");
const scheme = location.protocol === "https:" ? "wss" : "ws";
const query = new URLSearchParams({seat: config.seat < 0 ? "watch" : String(config.seat), token: config.token});
let socket = null;

function connect() {
  socket = new WebSocket(`${scheme}://${location.host}/ws/${config.table}?${query}`);
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "error") {
      errorBox.textContent = `${message.status}: ${message.error}`;
      return;
    }
    errorBox.textContent = "";
    table.innerHTML = message.html;
    showNewestEvents();
  };
  socket.onclose = () => setTimeout(connect, 1000);
}

function showNewestEvents() {
  const events = document.getElementById("events");
  if (events) events.scrollTop = events.scrollHeight;
}

function play(text) {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({move: text}));
}

table.addEventListener("click", (event) => {
  const control = event.target.closest("[data-action]");
  if (control) play(control.dataset.action);
});
document.getElementById("say").addEventListener("submit", (event) => {
  event.preventDefault();
  const box = document.getElementById("move-text");
  play(box.value);
  box.value = "";
});
showNewestEvents();
connect();
