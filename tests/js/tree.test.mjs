// The payload decoded into a tree (payload.mjs) and the in-page transforms (tree_kit.mjs).
import assert from "node:assert/strict";
import test from "node:test";

import { column, decode } from "../../src/flamespace/render/js/payload.mjs";
import { kit } from "../../src/flamespace/render/js/tree_kit.mjs";
import { sample, treeOf } from "./helpers.mjs";

// a column as render/html.py writes it: base64 of the little-endian typed array
function encoded(type, values) {
	const Array_ = {u1: Uint8Array, u2: Uint16Array, u4: Uint32Array, i2: Int16Array, f8: Float64Array}[type];
	return {type, data: Buffer.from(Array_.from(values).buffer).toString("base64")};
}

test("columns decode to their typed arrays", () => {
	assert.deepEqual(Array.from(column(encoded("u2", [1, 2, 65535]))), [1, 2, 65535]);
	assert.deepEqual(Array.from(column(encoded("i2", [-3, 7]))), [-3, 7]);
	assert.deepEqual(Array.from(column(encoded("f8", [0.5, 1e300]))), [0.5, 1e300]);
	assert.ok(column(encoded("u4", [1])) instanceof Uint32Array);
});

// root 10: a 6 (self 1) -> b 5; c 4 (self 1: the rest is in frames too narrow to lay out)
function payload(narrow) {
	return {
		frames: {count: 4, name: encoded("u1", [0, 1, 2, 3]), depth: encoded("u1", [0, 1, 2, 1]), start: encoded("f8", [0, 0, 1, 6]),
			value: encoded("f8", [10, 6, 5, 4]), self: encoded("f8", [0, 1, 5, 1]), colour: encoded("u1", [0, 1, 1, 2])},
		total: 10, max_depth: 2, narrow,
	};
}

test("a payload decodes to a tree with parents and subtree ends", () => {
	const tree = decode(payload(undefined));
	assert.deepEqual(Array.from(tree.parent), [-1, 0, 1, 0]);
	assert.deepEqual(Array.from(tree.end), [4, 3, 3, 4]);
	assert.equal(tree.total, 10);
	assert.equal(tree.narrow, null);
});

test("the frames left out: each laid-out frame's own, and what the page does not hold of them", () => {
	// under c: x 2 -> y 1 held; 1 more the page left out (not complete)
	const narrow = {count: encoded("u1", [0, 0, 0, 2]), name: encoded("u1", [4, 5]), depth: encoded("u1", [1, 2]),
		value: encoded("f8", [2, 1]), complete: false, actual: 10};
	const tree = decode(payload(narrow));
	assert.deepEqual(Array.from(tree.narrow.first), [0, 0, 0, 0, 2]);
	assert.deepEqual(Array.from(tree.narrow.missing), [0, 0, 0, 1], "c is 4: 1 its own, 2 held, 1 not");
	assert.equal(decode(payload({...narrow, complete: true})).narrow.missing, null);
});

function rowsOf(tree, names) {
	const out = [];
	for (let i = 0; i < tree.count; i++) out.push([tree.depth[i], names[tree.name[i]], tree.value[i]]);
	return out;
}
function over(names, wanted) { return Uint8Array.from(names, (name) => (wanted.includes(name) ? 1 : 0)); }

test("the table of functions: self, and inclusive counted once per stack", () => {
	const {tree, names} = sample(), table = kit.functionCosts(tree, null), rows = {};
	for (let r = 0; r < table.count; r++) rows[names[table.name[r]]] = [table.self[r], table.inclusive[r]];
	assert.deepEqual(rows, {main: [5, 60], eval: [10, 25], parse: [25, 45], lex: [20, 20], other: [40, 40]});
});

test("inverting: the leaves become roots, the total stays", () => {
	const {tree, names} = sample(), inverted = kit.transform(tree, names, {invert: true});
	assert.equal(inverted.total, 100);
	const roots = rowsOf(inverted, names).filter((row) => row[0] === 1).map((row) => [row[1], row[2]]);
	assert.deepEqual(roots, [["eval", 10], ["lex", 20], ["main", 5], ["other", 40], ["parse", 25]]);
});

test("merging a frame moves its callees to its caller; hiding one takes its callees too", () => {
	const {tree, names} = sample();
	const merged = rowsOf(kit.transform(tree, names, {merge: over(names, ["eval"])}), names);
	assert.deepEqual(merged, [[0, "root", 100], [1, "main", 60], [2, "parse", 45], [3, "lex", 20], [1, "other", 40]]);
	const hidden = kit.transform(tree, names, {drop: over(names, ["parse"])});
	assert.equal(hidden.total, 55, "both parses (15 + 30) and lex inside one leave");
});
