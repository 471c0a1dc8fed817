// A page's view in its URL's fragment (fragment.mjs): read, written, and read back.
import assert from "node:assert/strict";
import test from "node:test";

import { fragmentChanged, fragmentOf, parseFragment, spanOf, viewerParts } from "../../src/flamespace/render/js/fragment.mjs";

test("a fragment's parts: flags, values decoded", () => {
	assert.deepEqual(parseFragment("#z=12&s=parse%7Clex&ic"), {z: "12", s: "parse|lex", ic: ""});
	assert.deepEqual(parseFragment(""), {});
	assert.deepEqual(parseFragment("#"), {});
	assert.deepEqual(parseFragment("#=x&tab=panes"), {tab: "panes"}, "a part without a key is none");
});

test("a malformed escape is kept as written, not an error that stops the page", () => {
	assert.deepEqual(parseFragment("#s=100%&ic"), {s: "100%", ic: ""});
});

test("the viewer's state written and read back", () => {
	const state = {zoom: 0, x0: 10, x1: 30.5, total: 100, zoomStart: 0, zoomEnd: 100, term: "a&b=c (x)", ignoreCase: true,
		shape: "icicle", leftHeavy: true, invert: false, recursion: true, merge: "^re", hide: "", only: 3,
		focus: {text: "f (a.py)", group: "function"}, sandwich: {text: "g", group: "line"}};
	const parsed = parseFragment(fragmentOf(viewerParts(state)));
	assert.deepEqual(parsed, {x: "10,30.5", s: "a&b=c (x)", ic: "", icicle: "", lh: "", rec: "", merge: "^re", only: "3",
		focusf: "f (a.py)", sw: "g"});
	assert.deepEqual(spanOf(parsed.x), [10, 30.5]);
});

test("a view that is exactly a frame is written as the frame; the whole graph as nothing", () => {
	const base = {x0: 0, x1: 100, total: 100, only: -1, focus: null, sandwich: null};
	assert.equal(fragmentOf(viewerParts({...base, zoom: 4, x0: 20, x1: 40, zoomStart: 20, zoomEnd: 40})), "#z=4");
	assert.equal(fragmentOf(viewerParts({...base, zoom: 0})), "");
});

test("a span is two finite numbers in order", () => {
	assert.equal(spanOf("30,10"), null);
	assert.equal(spanOf("a,b"), null);
	assert.equal(spanOf(undefined), null);
	assert.equal(spanOf("1"), null);
});

test("no fragment and an empty one are the same", () => {
	assert.equal(fragmentChanged("", "#"), false);
	assert.equal(fragmentChanged("#z=1", "#z=1"), false);
	assert.equal(fragmentChanged("#z=2", "#z=1"), true);
});
