// flamespace page scripts: the few DOM helpers every page uses.

// an element with its attributes and, if given, its text
export function el(tag, attributes, text) {
	var node = document.createElement(tag);
	for (var key in attributes) node.setAttribute(key, attributes[key]);
	if (text !== undefined) node.textContent = text;
	return node;
}
// the one floating tooltip of the page (panes share it)
export function tooltipElement() {
	return document.getElementById("tooltip") || document.body.appendChild(el("div", {id: "tooltip"}));
}
// where a tooltip of size (w, h) goes beside the pointer at (x, y): right of and below it, else left of or
// above it where the window ends (4 px from its edges); the window's size is (width, height)
export function tooltipPlace(x, y, w, h, width, height) {
	var left = x + 14, top = y + 16;
	if (left + w > width - 4) left = Math.max(4, x - w - 14);
	if (top + h > height - 4) top = Math.max(4, y - h - 12);
	return [left, top];
}
// the page's tooltip filled and shown beside the pointer: a name, then the rows that rows(row) adds
// (row(label, value, cls): cls, if given, the value cell's class)
export function showTooltip(tooltip, name, rows, clientX, clientY) {
	tooltip.textContent = "";
	tooltip.appendChild(el("div", {"class": "name"}, name));
	var table = tooltip.appendChild(el("table"));
	rows(function (label, value, cls) {
		var tr = table.appendChild(el("tr"));
		tr.appendChild(el("td", {}, label));
		tr.appendChild(el("td", cls ? {"class": cls} : {}, value));
	});
	tooltip.style.display = "block";
	var at = tooltipPlace(clientX, clientY, tooltip.offsetWidth, tooltip.offsetHeight, window.innerWidth, window.innerHeight);
	tooltip.style.left = at[0] + "px";
	tooltip.style.top = at[1] + "px";
}
// a colour scale's row in `legend`: low end, the bar (spec.stops: [offset 0..1, colour]), high end, what it means
export function legendBar(legend, spec) {
	var row = legend.appendChild(el("div"));
	row.appendChild(el("span", {}, spec.low));
	row.appendChild(el("span", {"class": "bar", style: "background: " + gradientOf(spec.stops)}));
	row.appendChild(el("span", {}, spec.high));
	row.appendChild(el("span", {"class": "meaning"}, spec.meaning));
	return row;
}
// the CSS of a colour scale's bar
export function gradientOf(stops) {
	return "linear-gradient(to right, " + stops.map(function (s) { return s[1] + " " + (100 * s[0]) + "%"; }).join(", ") + ")";
}
