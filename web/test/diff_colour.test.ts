import assert from "node:assert/strict";
import { test } from "node:test";
import { diffFill, diffSign, maxMagnitude } from "../src/diff_colour";

test("diffSign: positive (A has more) and negative, zero and blank", () => {
  assert.equal(diffSign(5), "pos");
  assert.equal(diffSign(-0.5), "neg");
  assert.equal(diffSign(0), "zero");
  assert.equal(diffSign(null), "zero");
  assert.equal(diffSign(Number.NaN), "zero");
});

test("diffFill: red for more, green for less, stronger for larger changes", () => {
  assert.equal(diffFill(10, 10), "rgb(230,50,50)");
  assert.equal(diffFill(-10, 10), "rgb(50,200,50)");
  assert.equal(diffFill(5, 10), "rgb(230,130,130)");
  assert.equal(diffFill(0, 10), "rgb(200,200,200)");
  assert.equal(diffFill(3, 0), "rgb(200,200,200)");
  assert.equal(diffFill(30, 10), "rgb(230,50,50)");
  assert.equal(maxMagnitude([1, -7, null, 3]), 7);
});
