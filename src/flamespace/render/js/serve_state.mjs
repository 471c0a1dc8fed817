// flamespace serve's web UI: its state in the URL, time ranges, the timeline's bars and the comparison's
// rows, as pure functions (no document, no window: tests/js/serve_state.test.mjs runs them under Node).

// the range presets: name -> length in milliseconds (the UI's buttons, in this order)
export const PRESETS = {"15m": 15 * 60e3, "1h": 3600e3, "6h": 6 * 3600e3, "1d": 86400e3};
export const DEFAULT_PRESET = "1h";
export const VIEWS = ["flame", "compare", "history"];
// the most bars the timeline draws (windows are summed into as many buckets)
export const MAX_BARS = 240;
// the label that names a service (what Pyroscope's clients send as the application's name)
export const SERVICE_LABEL = "service_name";

var RELATIVE = /^now(?:-(\d+(?:\.\d+)?)([smhdw]))?$/;
var UNIT_MS = {s: 1e3, m: 60e3, h: 3600e3, d: 86400e3, w: 7 * 86400e3};
var UNIX = /^\d+(?:\.\d+)?$/;
var ZONE = /(?:[zZ]|[+-]\d\d:?\d\d)$/;

// a time as the server reads it (query.parse_when): now, now-30m, Unix seconds, an ISO date or date-time
// (UTC unless it says); NaN when it is none of these
export function parseWhen(text, nowMs) {
	var value = String(text || "").trim(), relative = RELATIVE.exec(value);
	if (relative) return relative[1] ? nowMs - parseFloat(relative[1]) * UNIT_MS[relative[2]] : nowMs;
	if (UNIX.test(value)) return parseFloat(value) * 1e3;
	if (!/^\d{4}-\d\d-\d\d/.test(value)) return NaN;
	var iso = value.replace(" ", "T");
	if (iso.length === 10) iso += "T00:00:00";
	return Date.parse(ZONE.test(iso) ? iso : iso + "Z");
}

// a time in the URL and the page: an ISO date-time in UTC to the second, without the zone ("2026-11-01T10:00:00")
export function isoOf(ms) { return new Date(Math.round(ms / 1e3) * 1e3).toISOString().slice(0, 19); }

// a time for the API: Unix seconds (exact, whatever the server's zone)
export function apiTime(ms) { return String(Math.round(ms) / 1e3); }

// the store's selector of a service and more labels ([[name, value], ...]); "" for every window
export function selectorOf(service, labels) {
	var parts = service ? [SERVICE_LABEL + "=" + service] : [];
	for (var i = 0; i < labels.length; i++) if (labels[i][0] && labels[i][1] !== undefined) parts.push(labels[i][0] + "=" + labels[i][1]);
	return parts.join(",");
}

function span(params, fromKey, untilKey) {
	var from = params.get(fromKey), until = params.get(untilKey);
	return from && until ? [from, until] : null;
}

// the UI's state from a URL's query string: service, labels, range (a preset, or "custom" with from and
// until as written), view, the compared ranges a and b ([from, until] as written, or null), stack (history's),
// load (each window over its load: the comparison as compare --normalize-load, the history as --metric normalised)
export function parseState(search) {
	var params = new URLSearchParams(search || ""), labels = [];
	params.getAll("label").forEach(function (pair) {
		var eq = pair.indexOf("=");
		if (eq > 0) labels.push([pair.slice(0, eq), pair.slice(eq + 1)]);
	});
	var from = params.get("from") || "", until = params.get("until") || "";
	var preset = params.get("range") || "";
	var range = from ? "custom" : Object.prototype.hasOwnProperty.call(PRESETS, preset) ? preset : DEFAULT_PRESET;
	var view = params.get("view");
	return {
		service: params.get("service") || "",
		labels: labels,
		range: range,
		from: from,
		until: range === "custom" ? until || "now" : "",
		view: VIEWS.indexOf(view) >= 0 ? view : "flame",
		a: span(params, "afrom", "auntil"),
		b: span(params, "bfrom", "buntil"),
		stack: params.get("stack") || "",
		load: params.get("load") === "1",
	};
}

// the query string of a state (parseState's inverse; defaults left out, so a URL says only what was chosen)
export function searchOf(state) {
	var params = new URLSearchParams();
	if (state.service) params.set("service", state.service);
	state.labels.forEach(function (pair) { params.append("label", pair[0] + "=" + pair[1]); });
	if (state.range === "custom") {
		params.set("from", state.from);
		params.set("until", state.until || "now");
	} else if (state.range !== DEFAULT_PRESET) params.set("range", state.range);
	if (state.view !== "flame") params.set("view", state.view);
	if (state.a) { params.set("afrom", state.a[0]); params.set("auntil", state.a[1]); }
	if (state.b) { params.set("bfrom", state.b[0]); params.set("buntil", state.b[1]); }
	if (state.stack) params.set("stack", state.stack);
	if (state.load) params.set("load", "1");
	var text = params.toString();
	return text ? "?" + text : "";
}

// the state's range in milliseconds [from, until] at nowMs; null when a custom bound is not a time
// or until is before from
export function rangeOf(state, nowMs) {
	if (state.range !== "custom") return [nowMs - PRESETS[state.range], nowMs];
	var from = parseWhen(state.from, nowMs), until = parseWhen(state.until || "now", nowMs);
	return isNaN(from) || isNaN(until) || until < from ? null : [from, until];
}

// what is wrong with the state's range, in words ("" when nothing): which bound is not a time (and what a
// time may be), or that until comes before from
export var TIME_FORMS = "write an ISO date-time in UTC (2026-11-01T10:00), Unix seconds, now, or now-2h (s, m, h, d, w)";
export function rangeProblem(state, nowMs) {
	if (state.range !== "custom") return "";
	var from = parseWhen(state.from, nowMs), until = parseWhen(state.until || "now", nowMs);
	if (isNaN(from)) return "from \"" + state.from + "\" is not a time: " + TIME_FORMS;
	if (isNaN(until)) return "until \"" + state.until + "\" is not a time: " + TIME_FORMS;
	if (until < from) return "until (" + isoOf(until) + ") is before from (" + isoOf(from) + ")";
	return "";
}

// a range of `lengthMs` ending where a window (the API's {time, time_end}) ends: [from, until] as written
// in the URL (to show the latest data when the chosen range has none)
export function rangeEndingAt(window, lengthMs) {
	var end = parseWhen(window.time_end || "", 0);
	if (isNaN(end)) end = parseWhen(window.time, 0);
	return [isoOf(end - lengthMs), isoOf(end)];
}

// a compared range ([from, until] as written) in milliseconds, or null
export function spanOf(written, nowMs) {
	if (!written) return null;
	var from = parseWhen(written[0], nowMs), until = parseWhen(written[1], nowMs);
	return isNaN(from) || isNaN(until) || until < from ? null : [from, until];
}

// the compared ranges A and B in milliseconds: those of the state, else the first and the second half of the range
export function comparedSpans(state, range, nowMs) {
	var middle = (range[0] + range[1]) / 2;
	return {a: spanOf(state.a, nowMs) || [range[0], middle], b: spanOf(state.b, nowMs) || [middle, range[1]]};
}

// the windows ([{time, time_end, total}], oldest first; ISO date-times in UTC) summed into at most `count`
// equal buckets over [from, until]: [{start, end, total, windows}]. A window's total is shared among the
// buckets its span overlaps, in proportion (so windows that straddle a bucket's edge do not make one bar
// double and the next empty); one without an end, or of no length, falls where it starts. `windows`: how
// many windows touch the bucket.
export function buckets(windows, from, until, count) {
	var n = Math.max(1, Math.min(count, windows.length || 1)), width = Math.max(1, (until - from) / n), out = [];
	for (var i = 0; i < n; i++) out.push({start: from + i * width, end: from + (i + 1) * width, total: 0, windows: 0});
	function index(ms) { return Math.max(0, Math.min(n - 1, Math.floor((ms - from) / width))); }
	for (var k = 0; k < windows.length; k++) {
		var start = parseWhen(windows[k].time, 0), end = parseWhen(windows[k].time_end || "", 0), total = windows[k].total;
		if (isNaN(start) || start < from || start > until) continue;
		if (isNaN(end) || end <= start) {
			out[index(start)].total += total;
			out[index(start)].windows += 1;
			continue;
		}
		var clipped = Math.min(end, until);
		for (var b = index(start); b <= index(clipped); b++) {
			var overlap = Math.min(clipped, out[b].end) - Math.max(start, out[b].start);
			if (overlap <= 0 && b !== index(start)) continue;
			out[b].total += total * Math.max(0, overlap) / (end - start);
			out[b].windows += 1;
		}
	}
	return out;
}

// a stack's frames as one line, root first
export function stackText(frames) {
	return frames.join(" \u2192 ");
}

// the significant changes of a comparison (the API's compare document): slower (grown, appeared) and
// faster (shrunk, disappeared), each the largest change first
export function changesOf(doc) {
	var slower = [], faster = [];
	(doc.stacks || []).forEach(function (row) {
		if (!row.significant || !row.kind) return;
		var item = {stack: row.stack, kind: row.kind, delta: row.delta, lower: row.lower, upper: row.upper,
			relative: row.relative, baseline: row.baseline, candidate: row.candidate, p: row.p_adjusted};
		if (row.kind === "grown" || row.kind === "appeared") slower.push(item);
		else faster.push(item);
	});
	function larger(x, y) { return Math.abs(y.delta) - Math.abs(x.delta); }
	return {slower: slower.sort(larger), faster: faster.sort(larger)};
}

// a regular expression that matches exactly one stack's text (history's `stack` parameter)
export function stackPattern(frames) {
	return "^" + frames.join(";").replace(/[.*+?^${}()|[\]\\]/g, "\\$&") + "$";
}

// the read token in a URL's fragment (#token=...), and the fragment without it (the token is kept out of
// the URL once read, so a shared link does not carry it)
export function tokenOf(hash) {
	var parts = String(hash || "").replace(/^#/, "").split("&"), token = "", rest = [];
	parts.forEach(function (part) {
		if (part.indexOf("token=") === 0) token = decodeURIComponent(part.slice(6));
		else if (part) rest.push(part);
	});
	return {token: token, hash: rest.length ? "#" + rest.join("&") : ""};
}

// whether most of a comparison's tested stacks were found changed in one direction (at least `share` of
// them, and 3): what more load in one range looks like when the windows are not divided by their load
export function mostMovedAlike(doc, share) {
	var stacks = doc.stacks || [], up = 0, down = 0;
	stacks.forEach(function (c) { if (c.significant) { if (c.delta > 0) up++; else if (c.delta < 0) down++; } });
	var most = Math.max(up, down);
	return most >= 3 && most >= (share || 0.5) * stacks.length;
}
