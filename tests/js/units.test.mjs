// Numbers for people (units.mjs) as the library writes them: fixtures/units.json is made from
// flamespace.core.units by tests/render/test_js_fixtures.py (which fails when it is stale).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import test from "node:test";

import { formatter, percent } from "../../src/flamespace/render/js/units.mjs";

const FIXTURE = JSON.parse(readFileSync(new URL("./fixtures/units.json", import.meta.url), "utf-8"));

test("every value of every unit reads as the library writes it", () => {
	const wrong = [];
	for (const [unit, value, signed, text] of FIXTURE.cases) {
		const number = typeof value === "string" ? Number(value.replace("inf", "Infinity")) : value;
		const shown = formatter(FIXTURE.specs[unit]).human(number, signed);
		if (shown !== text) wrong.push(`${unit || "(none)"} ${value}${signed ? " signed" : ""}: ${shown}, the library ${text}`);
	}
	assert.deepEqual(wrong, []);
	assert.ok(FIXTURE.cases.length > 400, "the fixture holds the cases");
});

test("a count names its unit and a share is a percentage", () => {
	assert.equal(formatter({kind: "count", name: "samples", significant: 3, max_decimals: 6}).human(1234), "1,234 samples");
	assert.equal(formatter({kind: "share", significant: 3, max_decimals: 6}).human(0.25), "25.0%");
	assert.equal(formatter({kind: "share", significant: 3, max_decimals: 6}).human(0.25, true), "+25.0 pp");
});

test("a percent of nothing is n/a", () => {
	assert.equal(percent(1, 3), "33.33%");
	assert.equal(percent(1, 0), "n/a");
});
