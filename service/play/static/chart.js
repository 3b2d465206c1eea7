// The running totals as a small SVG line chart, one line per player, drawn from the players'
// `round_scores`. Colours and dash patterns both differ, so lines stay apart without colour.

import { seatName } from "./narration.js";

const SVG = "http://www.w3.org/2000/svg";
export const WIDTH = 320;
export const HEIGHT = 170;
export const PAD = { left: 34, right: 10, top: 10, bottom: 22 };
const STROKES = [
  ["#1f4e9c", ""], ["#b3261e", "6 3"], ["#1b7a3a", "2 2"], ["#7a4b00", "8 3 2 3"],
  ["#5b2a86", "1 3"], ["#00696f", "10 4"], ["#8a1c5c", "4 2 1 2"], ["#3d3d3d", "3 1"],
];

export function renderChart(container, view) {
  container.replaceChildren();
  const series = view.players.map((p) => running(p.round_scores));
  const rounds = Math.max(0, ...series.map((s) => s.length - 1));
  if (rounds === 0) return;
  const top = Math.max(10, ...series.flat());
  const bottom = Math.min(0, ...series.flat());
  const x = (r) => PAD.left + (r / Math.max(rounds, 1)) * (WIDTH - PAD.left - PAD.right);
  const y = (v) => PAD.top + ((top - v) / (top - bottom)) * (HEIGHT - PAD.top - PAD.bottom);

  const svg = node("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img", class: "chart" });
  const names = view.players.map((p) => seatName(view, p.seat));
  const summary = names.map((n, i) => `${n} ${series[i].at(-1)}`).join(", ");
  svg.append(node("title", {}, `Running totals after ${rounds} rounds: ${summary}`));
  svg.append(node("line", { x1: PAD.left, x2: WIDTH - PAD.right, y1: y(0), y2: y(0), class: "axis" }));
  svg.append(node("line", { x1: PAD.left, x2: PAD.left, y1: PAD.top, y2: HEIGHT - PAD.bottom, class: "axis" }));
  for (const v of [bottom, top]) {
    svg.append(node("text", { x: PAD.left - 4, y: y(v) + 4, class: "tick", "text-anchor": "end" }, String(v)));
  }
  for (const r of [1, rounds]) {
    svg.append(node("text", { x: x(r), y: HEIGHT - 6, class: "tick", "text-anchor": "middle" }, String(r)));
  }
  series.forEach((totals, i) => {
    const [colour, dash] = STROKES[i % STROKES.length];
    const points = totals.map((v, r) => `${x(r).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
    svg.append(node("polyline", {
      points, fill: "none", stroke: colour, "stroke-width": 2, "stroke-dasharray": dash,
      "data-seat": view.players[i].seat,
    }));
    const [lx, ly] = [x(totals.length - 1), y(totals.at(-1))];
    svg.append(node("circle", { cx: lx, cy: ly, r: 3, fill: colour }));
  });
  container.append(svg, legend(names, series));
}

function running(scores) {
  const totals = [0];
  for (const s of scores) totals.push(totals.at(-1) + s);
  return totals;
}

function legend(names, series) {
  const list = document.createElement("ul");
  list.className = "legend";
  list.setAttribute("aria-hidden", "true"); // the chart's title says the same
  names.forEach((name, i) => {
    const [colour, dash] = STROKES[i % STROKES.length];
    const item = document.createElement("li");
    const swatch = node("svg", { viewBox: "0 0 24 8", class: "swatch" });
    swatch.append(node("line", { x1: 0, x2: 24, y1: 4, y2: 4, stroke: colour, "stroke-width": 2, "stroke-dasharray": dash }));
    item.append(swatch, `${name} ${series[i].at(-1)}`);
    list.append(item);
  });
  return list;
}

/** An SVG element with `attributes` (an empty value left out) and `text`. */
export function node(name, attributes, text) {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) {
    if (value !== "") element.setAttribute(key, String(value));
  }
  if (text !== undefined) element.textContent = text;
  return element;
}
