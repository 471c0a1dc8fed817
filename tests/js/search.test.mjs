// The one search of every page (search.mjs): patterns, which names match, the matched share (each match
// counted once, with the frames too narrow to lay out), and how the share is written.
import assert from "node:assert/strict";
import test from "node:test";

import { RANGE_NOTE, boxesMatched, compileSearch, escapeRegex, matchNames, matchedPercent, matchedRange, matchedShare,
	paneMatched, searchKey } from "../../src/flamespace/render/js/search.mjs";
import { sample, treeOf } from "./helpers.mjs";

// root 100: main 60 (self 5) -> parse 30 (self 10) -> lex 20; main -> eval 25 -> parse 15 (a second parse);
// other 40 (self 40)
function share(t, pattern, zoom) { return matchedShare(t.tree, matchNames(t.names, pattern), zoom || 0); }

test("a search box's text: a pattern, none, or no regex at all", () => {
	assert.equal(compileSearch("", false), null);
	assert.equal(compileSearch("(", false), undefined);
	assert.ok(compileSearch("Parse", true).test("parse"));
	assert.ok(!compileSearch("Parse", false).test("parse"));
	assert.ok(new RegExp("^" + escapeRegex("f (a.py:1) [x]") + "$").test("f (a.py:1) [x]"));
});

test("which names match", () => {
	const t = sample();
	assert.deepEqual(Array.from(matchNames(t.names, /^(parse|lex)$/)), t.names.map((name) => (name === "parse" || name === "lex" ? 1 : 0)));
});

test("a match inside another match counts once", () => {
	const t = sample();
	assert.deepEqual(share(t, /parse|lex/), {share: 0.45, upTo: 0.45});  // both parses (15 + 30); lex is inside one
	assert.deepEqual(share(t, /lex/), {share: 0.2, upTo: 0.2});
	assert.deepEqual(share(t, /nothing/), {share: 0, upTo: 0});
});

test("the share is of the zoomed frame, and all of it when the zoomed frame is inside a match", () => {
	const t = sample();
	assert.equal(share(t, /parse/, 1).share, 45 / 60);  // main
	assert.equal(share(t, /parse/, 5).share, 1);        // lex, inside parse
	assert.equal(share(t, /main/, 6).share, 0);         // other, beside main
});

// The payload's narrow block: frames the layout left out, owned by laid-out frames ([first[i], first[i + 1])),
// depth below their owner; missing: what the page does not hold of them.
function withNarrow(t, owned, missing) {
	const first = new Uint32Array(t.tree.count + 1), name = [], depth = [], value = [];
	for (let i = 0; i < t.tree.count; i++) {
		for (const [n, d, v] of owned[i] || []) {
			if (!t.names.includes(n)) t.names.push(n);
			name.push(t.names.indexOf(n)); depth.push(d); value.push(v);
		}
		first[i + 1] = name.length;
	}
	t.tree.narrow = {first, name: Uint32Array.from(name), depth: Uint32Array.from(depth), value: Float64Array.from(value),
		missing: missing ? Float64Array.from(missing) : null};
	return t;
}

test("the frames too narrow to lay out count, outermost only", () => {
	// under other (frame 6, self 40 of which 3 are in left-out frames): tiny 2 -> tiny 1, and tinier 1
	const t = withNarrow(sample(), {6: [["tiny", 1, 2], ["tiny", 2, 1], ["tinier", 1, 1]]});
	assert.equal(share(t, /tiny/).share, 0.02);
	assert.equal(share(t, /tin/).share, 0.03);
});

test("frames the page does not hold make the share a range", () => {
	const missing = new Array(7).fill(0);
	missing[6] = 1.5;  // other holds 1.5 in frames the page left out altogether
	const t = withNarrow(sample(), {6: [["tiny", 1, 2]]}, missing);
	const found = share(t, /tiny/);
	assert.equal(found.share, 0.02);
	assert.equal(found.upTo, 0.035);
	assert.equal(share(t, /other/).upTo, 0.4, "inside a match nothing is unknown");
});

test("the matched share as the SVG writes it: one decimal, 100 only when all but 0.005% matched", () => {
	assert.equal(matchedPercent(0.408), "40.8");
	assert.equal(matchedPercent(0), "0.0");
	assert.equal(matchedPercent(0.99996), "100");
	assert.equal(matchedPercent(0.99994), "100.0");
	assert.equal(matchedPercent(1.2), "100");
});

test("Matched: a figure, a range, or nothing without a search", () => {
	assert.equal(matchedRange(null, null), "");
	assert.equal(matchedRange(0.408, 0.408), "Matched: 40.8%");
	assert.equal(matchedRange(0.401, 0.412), "Matched: 40.1\u201341.2%");
	assert.equal(matchedRange(0.4081, 0.4084), "Matched: 40.8%", "a range within the figure's rounding is one figure");
	const pane = (low, high) => ({matched: () => low, matchedUpTo: () => high});
	assert.deepEqual(paneMatched(pane(0.401, 0.412)), {text: "Matched: 40.1\u201341.2%", some: true, title: RANGE_NOTE});
	assert.deepEqual(paneMatched(pane(0, 0)), {text: "Matched: 0.0%", some: false, title: ""});
	assert.deepEqual(paneMatched(pane(null, null)), {text: "", some: false, title: ""});
});

test("a flame chart counts boxes", () => {
	assert.equal(boxesMatched(1).text, "1 box match");
	assert.equal(boxesMatched(1234).text, "1,234 boxes match");
	assert.equal(boxesMatched(0).some, false);
});

test("the search's keys: Ctrl+F, / and F3 focus it, Esc in it clears it, other fields keep their keys", () => {
	const box = {tagName: "INPUT"}, body = {tagName: "BODY"}, other = {tagName: "INPUT"};
	assert.equal(searchKey("/", false, body, box), "focus");
	assert.equal(searchKey("f", true, body, box), "focus");
	assert.equal(searchKey("F3", false, body, box), "focus");
	assert.equal(searchKey("f", false, body, box), "");
	assert.equal(searchKey("Escape", false, box, box), "clear");
	assert.equal(searchKey("a", false, box, box), "typing");
	assert.equal(searchKey("/", false, other, box), "");
});
