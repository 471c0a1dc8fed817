// A pane's geometry (layout.mjs) and the flame chart's ruler steps (chart.mjs), apart from any canvas.
import assert from "node:assert/strict";
import test from "node:test";

import { tickStep } from "../../src/flamespace/render/js/chart.mjs";
import { ROW, blockView, clampView, coveringFrame, fitLabel, frameOf, pathOf, rowTop, zoomedView } from "../../src/flamespace/render/js/layout.mjs";
import { sample, treeOf } from "./helpers.mjs";

test("a label: whole, without its location, cut with .., or nothing", () => {
	const location = / \([^()]*:\d+\)$/;
	assert.equal(fitLabel("parse (a.py:12)", 200, 7, location), "parse (a.py:12)");
	assert.equal(fitLabel("parse (a.py:12)", 6 + 7 * 8, 7, location), "parse", "the location goes first");
	assert.equal(fitLabel("parse_expression", 6 + 7 * 8, 7, null), "parse_..");
	assert.equal(fitLabel("parse", 6 + 7 * 2, 7, null), "", "fewer than 3 characters: no label");
});

test("a view stays inside the graph and keeps a least width", () => {
	assert.deepEqual(clampView(-10, 20, 100), [0, 30]);
	assert.deepEqual(clampView(90, 120, 100), [70, 100]);
	assert.deepEqual(clampView(-5, 200, 100), [0, 100]);
	const [lo, hi] = clampView(50, 50, 100);
	assert.ok(hi > lo && Math.abs((lo + hi) / 2 - 50) < 1e-9);
});

test("zooms: by a factor around a point, onto a (small) block", () => {
	assert.deepEqual(zoomedView(0, 100, 0.5, 0.5), [25, 75]);
	assert.deepEqual(zoomedView(0, 100, 0.5, 0), [0, 50]);
	assert.deepEqual(blockView(10, 20, 0, 100, 15), [10, 20], "a narrow block: its span");
	assert.deepEqual(blockView(0, 80, 0, 100, 40), [27.5, 52.5], "a wide one: a quarter of the view around the point");
});

test("the frame a view covers, a frame by its path and the path of a frame", () => {
	const {tree, names} = sample();
	assert.equal(coveringFrame(tree, 32, 38), 4, "inside the second parse, beside lex");
	assert.equal(coveringFrame(tree, 40, 50), 5, "inside lex");
	assert.equal(coveringFrame(tree, 0, 100), 0);
	assert.equal(coveringFrame(tree, 50, 70), 0, "across main and other: the root");
	assert.equal(frameOf(tree, names, ["main", "parse", "lex"]), 5);
	assert.equal(frameOf(tree, names, ["main", "nothing"]), 1, "the deepest frame found");
	assert.equal(frameOf(tree, names, 3), 3);
	assert.deepEqual(pathOf(tree, names, 3), ["main", "eval", "parse"]);
	assert.deepEqual(pathOf(tree, names, 0), []);
});

test("rows: the root at the bottom of a flame graph, at the top of an icicle", () => {
	assert.equal(rowTop(0, 3, false), 3 * ROW + 1);
	assert.equal(rowTop(0, 3, true), 1);
});

test("a ruler's step is 1, 2 or 5 times a power of ten, about every 90 pixels", () => {
	assert.equal(tickStep(1000, 900), 100);
	assert.equal(tickStep(1000, 450), 200);
	assert.equal(tickStep(1000, 200), 500);
	assert.equal(tickStep(3e9, 900), 5e8);
});
