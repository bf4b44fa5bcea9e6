"""Rules as data, end to end (docs/rules.md): a real bug class the built-in verifier misses is planted in a
sample, the interpreter catches it, delta debugging reduces the kernel, a rule is proposed from the reduced
kernel and validated against the good corpus, and `cakec --rules` with that rule then rejects the planted
kernel.  Needs cakec; the proposal verifies the whole corpus once (a minute or two on a loaded 2-core
machine)."""

import json
import os
import subprocess

import pytest

from cakeir.harness import propose_rule, reduce

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SAMPLE = os.path.join(REPO, "samples", "block_reduce_sum.cake")
RULE_FILE = os.path.join(REPO, "rules", "shared_read_after_write.json")
LOST_STORE = "  if lane == 0 {\n    warp_sums[warp] = acc;\n  }\n"


def planted_kernel():
    """block_reduce_sum with the warps' partial sums never stored: warp 0 reduces uninitialised shared memory."""
    text = open(SAMPLE, encoding="utf-8").read()
    assert LOST_STORE in text
    return text.replace(LOST_STORE, "")


def verify(cakec, path, *extra):
    done = subprocess.run([cakec, str(path), "--verify-only", "--diagnostics-format", "json", *extra],
                          capture_output=True, text=True, timeout=600)
    return done.returncode, json.loads(done.stdout) if done.stdout.strip() else []


# ---- the reducer on its own (no cakec): ddmin keeps exactly what the predicate needs
def test_ddmin_keeps_only_the_needed_lines():
    text = "".join("line %d\n" % i for i in range(40))
    needed = {"line 3\n", "line 17\n", "line 31\n"}
    result = reduce.reduce_kernel(text, lambda t: all(n in t for n in needed))
    assert result.text == "line 3\nline 17\nline 31\n"
    assert result.original_lines == 40 and result.lines == 3


def test_brace_regions_go_as_units():
    text = "keep\nif c {\n  a\n  if d {\n    b\n  }\n}\nkeep too\n"
    calls = []

    def predicate(t):
        calls.append(t)
        return t.count("{") == t.count("}") and "keep\n" in t and "keep too" in t

    assert reduce.reduce_kernel(text, predicate).text == "keep\nkeep too\n"


def test_the_predicate_must_hold_at_the_start():
    with pytest.raises(ValueError):
        reduce.reduce_kernel("a\n", lambda t: False)


# ---- the planted bug, end to end
def test_the_verifier_misses_the_planted_bug_and_the_interpreter_catches_it(cakec_only):
    outcome = reduce.evaluate_text(planted_kernel(), cakec=cakec_only)
    assert outcome.verified, outcome.verify_diagnostics
    assert outcome.run_failed and outcome.run_codes() == ["E0914"]
    assert "warp_sums" in outcome.run_diagnostics[0]["message"]
    # The sample itself passes both.
    good = reduce.evaluate_text(open(SAMPLE, encoding="utf-8").read(), cakec=cakec_only)
    assert good.verified and not good.run_failed


@pytest.fixture(scope="module")
def reduced(cakec_only_module):
    predicate = reduce.verifier_passes_run_fails(codes=["E0914"], cakec=cakec_only_module)
    return reduce.reduce_kernel(planted_kernel(), predicate)


@pytest.fixture(scope="module")
def cakec_only_module():
    from cakeir import _tools
    path = os.environ.get("CAKE_CAKEC")
    if path and os.path.isfile(path):
        return path
    try:
        return _tools.find_cakec(use_path=False)
    except FileNotFoundError as error:
        pytest.skip(str(error))


def test_reduction_keeps_the_failure_and_drops_the_rest(reduced, cakec_only_module):
    assert reduced.original_lines == 67
    assert reduced.lines <= 14, reduced.text
    assert "warp_sums[lane]" in reduced.text
    outcome = reduce.evaluate_text(reduced.text, cakec=cakec_only_module)
    assert outcome.verified and outcome.run_codes() == ["E0914"]


def test_proposed_rule_rejects_the_kernel_and_accepts_the_corpus(reduced, cakec_only_module, tmp_path):
    outcome = reduce.evaluate_text(reduced.text, cakec=cakec_only_module)
    failure = outcome.run_diagnostics[0]
    proposal = propose_rule.propose_rule(reduced.text, failure["code"], failure["line"], cakec=cakec_only_module)
    rule = proposal.rule
    assert rule is not None, proposal.rejected
    # The stronger forms are refuted by the corpus: "all paths" by block_reduce_sum (it stores under
    # `if lane == 0`), per-role paths by kernels whose consumer role reads what a producer role loaded.
    assert any("block_reduce_sum" in why for why in proposal.rejected.values())
    assert any(os.sep + "kernels" + os.sep in why for why in proposal.rejected.values())   # e.g. assign_sm90
    assert rule["op"] == "shared.load" and rule["paths"] == "some" and rule["scope"] == "kernel"
    assert "buffers" not in rule
    assert set(rule["after"]) == {"shared.store", "stmatrix", "cp.async", "tma.load"}
    assert len(proposal.corpus) >= 20, proposal.skipped
    assert os.path.join(REPO, "samples", "block_reduce_sum.cake") in proposal.corpus
    # The committed rule file is this proposal (renamed).
    committed = json.load(open(RULE_FILE, encoding="utf-8"))["rules"][0]
    for key in ("op", "after", "paths", "scope"):
        assert committed[key] == rule[key]
    assert "buffers" not in committed and "reset" not in committed

    # With the rule, cakec rejects the planted kernel at the read (and still verifies the sample).
    planted = tmp_path / "planted.cake"
    planted.write_text(planted_kernel())
    rc, diags = verify(cakec_only_module, planted, "--rules", RULE_FILE)
    assert rc == 1
    assert [(d["code"], d["line"]) for d in diags if d["severity"] == "error"] == [("E0625", 58)]
    assert "shared-read-after-write" in diags[0]["message"]
    rc, diags = verify(cakec_only_module, SAMPLE, "--rules", RULE_FILE)
    assert rc == 0, diags
