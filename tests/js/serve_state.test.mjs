// flamespace serve's UI (serve_state.mjs): its state in the URL, time ranges, the timeline's buckets, the comparison's rows.
import assert from "node:assert/strict";
import test from "node:test";

import { PRESETS, parseWhen, isoOf, apiTime, selectorOf, parseState, searchOf, rangeOf, rangeProblem, rangeEndingAt, comparedSpans, buckets, changesOf,
	stackPattern, tokenOf, mostMovedAlike } from "../../src/flamespace/render/js/serve_state.mjs";

const NOW = Date.UTC(2026, 10, 1, 12, 0, 0);

test("times as the server reads them: now, now-N units, Unix seconds, ISO in UTC unless it says", () => {
	assert.equal(parseWhen("now", NOW), NOW);
	assert.equal(parseWhen("now-30m", NOW), NOW - 30 * 60e3);
	assert.equal(parseWhen("now-1.5h", NOW), NOW - 5400e3);
	assert.equal(parseWhen("now-2d", NOW), NOW - 2 * 86400e3);
	assert.equal(parseWhen("1793527200", NOW), 1793527200e3);
	assert.equal(parseWhen("2026-11-01T10:00:00", NOW), Date.UTC(2026, 10, 1, 10));
	assert.equal(parseWhen("2026-11-01 10:00", NOW), Date.UTC(2026, 10, 1, 10), "a space for the T, no seconds");
	assert.equal(parseWhen("2026-11-01", NOW), Date.UTC(2026, 10, 1));
	assert.equal(parseWhen("2026-11-01T10:00:00+02:00", NOW), Date.UTC(2026, 10, 1, 8), "a zone it says is kept");
	for (const bad of ["", "yesterday", "now-5y", "now+1h", "11/01/2026"]) assert.ok(Number.isNaN(parseWhen(bad, NOW)), bad);
});

test("a time written for the URL and for the API reads back as itself", () => {
	const t = Date.UTC(2026, 10, 1, 10, 20, 30);
	assert.equal(isoOf(t), "2026-11-01T10:20:30");
	assert.equal(parseWhen(isoOf(t), NOW), t);
	assert.equal(apiTime(t), "1793528430");
	assert.equal(parseWhen(apiTime(t + 500), NOW), t + 500, "the API's seconds keep the milliseconds");
});

test("the selector of a service and labels", () => {
	assert.equal(selectorOf("", []), "");
	assert.equal(selectorOf("api", []), "service_name=api");
	assert.equal(selectorOf("api", [["region", "eu"], ["version", "2"]]), "service_name=api,region=eu,version=2");
	assert.equal(selectorOf("", [["version", "1.4.2"]]), "version=1.4.2");
});

test("the default state is the last hour's flame graph of every window, and its URL says nothing", () => {
	const state = parseState("");
	assert.deepEqual(state, {service: "", labels: [], range: "1h", from: "", until: "", view: "flame", a: null, b: null, stack: "", load: false});
	assert.equal(searchOf(state), "");
	assert.deepEqual(rangeOf(state, NOW), [NOW - 3600e3, NOW]);
});

test("every part of the state goes into the URL and comes back the same", () => {
	const state = {service: "check out", labels: [["region", "eu"], ["version", "1.4.2"]], range: "custom",
		from: "2026-11-01T10:00:00", until: "now", view: "compare", a: ["2026-11-01T10:00:00", "2026-11-01T10:30:00"],
		b: ["2026-11-01T10:30:00", "2026-11-01T11:00:00"], stack: "^main;parse$", load: true};
	const search = searchOf(state);
	assert.deepEqual(parseState(search), state);
	assert.equal(searchOf(parseState(search)), search);
	for (const preset of Object.keys(PRESETS)) {
		const chosen = {...parseState(""), range: preset, view: "history"};
		assert.deepEqual(parseState(searchOf(chosen)), chosen, preset);
	}
});

test("a URL with unknown or partial values falls back to the defaults", () => {
	const state = parseState("?range=3y&view=nothing&label=noequals&label==x&afrom=2026-11-01");
	assert.equal(state.range, "1h");
	assert.equal(state.view, "flame");
	assert.deepEqual(state.labels, []);
	assert.equal(state.a, null, "a range needs both ends");
	assert.equal(parseState("?from=now-2h").until, "now");
	assert.deepEqual(parseState("?label=k%3Dv%3Dw").labels, [["k", "v=w"]], "the first = splits name and value");
});

test("ranges: presets end now, custom ranges are read, a bad one is null", () => {
	assert.deepEqual(rangeOf({range: "15m"}, NOW), [NOW - 900e3, NOW]);
	assert.deepEqual(rangeOf({range: "1d"}, NOW), [NOW - 86400e3, NOW]);
	assert.deepEqual(rangeOf({range: "custom", from: "now-6h", until: "now-1h"}, NOW), [NOW - 6 * 3600e3, NOW - 3600e3]);
	assert.equal(rangeOf({range: "custom", from: "garbage", until: "now"}, NOW), null);
	assert.equal(rangeOf({range: "custom", from: "now", until: "now-1h"}, NOW), null, "until before from");
});

test("the compared ranges: the state's, else the two halves of the range", () => {
	const range = [NOW - 3600e3, NOW];
	assert.deepEqual(comparedSpans({a: null, b: null}, range, NOW), {a: [NOW - 3600e3, NOW - 1800e3], b: [NOW - 1800e3, NOW]});
	const chosen = comparedSpans({a: ["now-50m", "now-40m"], b: ["now-10m", "now"]}, range, NOW);
	assert.deepEqual(chosen, {a: [NOW - 3000e3, NOW - 2400e3], b: [NOW - 600e3, NOW]});
	assert.deepEqual(comparedSpans({a: ["x", "y"], b: null}, range, NOW).a, [NOW - 3600e3, NOW - 1800e3], "a bad one: the default");
});

test("buckets sum the windows that start in them; windows outside the range are left out", () => {
	const from = Date.UTC(2026, 10, 1, 10), until = from + 60e3;
	const windows = [0, 10, 20, 30, 40, 50, 60, 70].map((s) => ({time: isoOf(from + s * 1e3), total: s + 1}));
	const bars = buckets(windows, from, until, 3);
	assert.equal(bars.length, 3);
	assert.deepEqual(bars.map((b) => b.total), [1 + 11, 21 + 31, 41 + 51 + 61]);
	assert.deepEqual(bars.map((b) => b.windows), [2, 2, 3], "a window at the range's end goes to the last bar");
	assert.equal(bars[0].start, from);
	assert.equal(bars[2].end, until);
	assert.equal(buckets(windows, from, until, 100).length, windows.length, "no more bars than windows");
	assert.equal(buckets([], from, until, 100).length, 1);
});

test("a window's total is shared among the buckets its span overlaps: equal windows give equal bars", () => {
	const from = Date.UTC(2026, 10, 1, 10), until = from + 40e3;
	// a 2 s window of 40, then seven 5 s windows of 100 each from 2 s to 37 s, offset from the buckets' edges:
	// each full 10 s bucket holds 200 (two whole windows' worth), the last 140 (the windows end at 37 s)
	const windows = [2, 7, 12, 17, 22, 27, 32].map((s) => ({time: isoOf(from + s * 1e3), time_end: isoOf(from + (s + 5) * 1e3), total: 100}));
	windows.unshift({time: isoOf(from), time_end: isoOf(from + 2e3), total: 40});
	const bars = buckets(windows, from, until, 4);
	assert.deepEqual(bars.map((b) => Math.round(b.total)), [40 + 100 + 60, 200, 200, 40 + 100], "shares of 5 s windows");
	assert.equal(bars[1].windows, 3, "the windows touching a bucket");
	const lastEnds = buckets([{time: isoOf(from + 38e3), time_end: isoOf(from + 48e3), total: 100}], from, until, 1);
	assert.equal(Math.round(lastEnds[0].total), 20, "what lies past the range is not drawn");
});

test("the comparison's rows: significant growth is slower, shrinking faster, the largest first", () => {
	const row = (stack, kind, delta, significant = true) => ({stack, kind, significant, delta, baseline: 10, candidate: 10 + delta,
		relative: delta / 10, lower: delta - 1, upper: delta + 1, p: 0.001, p_adjusted: 0.002});
	const doc = {stacks: [row(["main", "a"], "grown", 5), row(["main", "b"], "grown", 50), row(["main", "c"], "shrunk", -3),
		row(["main", "d"], "appeared", 2), row(["main", "e"], null, 7, false), row(["main", "f"], "disappeared", -9)]};
	const found = changesOf(doc);
	assert.deepEqual(found.slower.map((c) => c.stack[1]), ["b", "a", "d"]);
	assert.deepEqual(found.faster.map((c) => c.stack[1]), ["f", "c"]);
	assert.deepEqual([found.slower[0].lower, found.slower[0].upper, found.slower[0].p], [49, 51, 0.002]);
	assert.deepEqual(changesOf({}), {slower: [], faster: []});
});

test("a stack's pattern matches that stack's text alone", () => {
	const pattern = new RegExp(stackPattern(["main", "parse (a.py:1)", "x.y*"]));
	assert.ok(pattern.test("main;parse (a.py:1);x.y*"));
	assert.ok(!pattern.test("main;parse (a.py:1);x.yy"));
	assert.ok(!pattern.test("main;parse (a.py:1);x.y*;deeper"));
});

test("a token in the fragment is read and taken out of it", () => {
	assert.deepEqual(tokenOf("#token=abc%2Bdef&x=1"), {token: "abc+def", hash: "#x=1"});
	assert.deepEqual(tokenOf("#token=abc"), {token: "abc", hash: ""});
	assert.deepEqual(tokenOf("#x=1"), {token: "", hash: "#x=1"});
	assert.deepEqual(tokenOf(""), {token: "", hash: ""});
});

test("a bad range says which bound is wrong and what a time may be", () => {
	assert.equal(rangeProblem({range: "1h"}, NOW), "");
	assert.equal(rangeProblem({range: "custom", from: "now-2h", until: "now"}, NOW), "");
	const bad = rangeProblem({range: "custom", from: "yesterday", until: "now"}, NOW);
	assert.match(bad, /^from "yesterday" is not a time: /);
	assert.match(bad, /ISO date-time/);
	assert.match(bad, /now-2h/);
	assert.match(rangeProblem({range: "custom", from: "now-1h", until: "soon"}, NOW), /^until "soon" is not a time/);
	assert.match(rangeProblem({range: "custom", from: "now", until: "now-1h"}, NOW), /^until \(.*\) is before from \(.*\)/);
});

test("the range ending at the latest window: as long as the current range, ending at that window's end", () => {
	assert.deepEqual(rangeEndingAt({time: "2026-11-01T10:00:00+00:00", time_end: "2026-11-01T10:00:10+00:00"}, 3600e3),
		["2026-11-01T09:00:10", "2026-11-01T10:00:10"]);
	assert.deepEqual(rangeEndingAt({time: "2026-11-01T10:00:00+00:00"}, 900e3), ["2026-11-01T09:45:00", "2026-11-01T10:00:00"],
		"a window without an end: the range ends where it starts");
});

test("most stacks changed one way is a hint of load: at least half the tested stacks, and three", () => {
	const doc = (moves) => ({stacks: moves.map((d) => ({significant: d !== 0, delta: d}))});
	assert.ok(mostMovedAlike(doc([1, 1, 1, 0, 0, 0])));
	assert.ok(!mostMovedAlike(doc([1, 1, -1, 0, 0, 0])), "two up, one down: not alike");
	assert.ok(!mostMovedAlike(doc([1, 1, 0])), "two are not most enough");
	assert.ok(!mostMovedAlike(doc([1, 1, 1, 0, 0, 0, 0])), "three of seven are not half");
	assert.ok(!mostMovedAlike({}));
});
