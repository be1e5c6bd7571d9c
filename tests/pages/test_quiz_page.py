"""AppTest of the quiz page: at least twelve questions over every lesson, right and wrong answers give feedback with a
link to the page that shows it, the score counts (and resets), answers survive page switches, options shuffle per
session from one seed (and the checking follows the shuffle), the right option is rarely the longest, Chinese
renders; every number an explanation states is the engines' and is checked here against a count of its own."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from flashviz.i18n import t
from flashviz.engine.quiz_facts import facts
from flashviz.ui import pages, quiz
from flashviz.ui.pages import switch

APP = str(Path(__file__).resolve().parents[2] / "app.py")
QUIZ = "quiz"


def open_app(page: str | None = None, **query) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    for k, v in query.items():
        at.query_params[k] = v
    at.run()
    if page:
        switch(at, page).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def answer(at: AppTest, qid: str, option: str) -> AppTest:
    return at.radio(key=f"_w.quiz.{qid}").set_value(option).run()


def links(at: AppTest) -> list[str]:
    return [pl.proto.label for pl in at.get("page_link")]


def shown_score(at: AppTest, right: int, answered: int) -> bool:
    """The score line the page shows above and below the questions."""
    want = t("quiz.score", "en", right=right, total=len(quiz.QUESTIONS), answered=answered)
    return at.caption[0].value == want and at.subheader[-1].value == want


def test_at_least_twelve_questions_over_every_lesson_unanswered_at_first():
    at = open_app(QUIZ)
    assert at.title[0].value == "Quiz: check what stuck"
    assert len(quiz.QUESTIONS) >= 12 and len(at.radio) == len(quiz.QUESTIONS)
    assert all(r.value is None for r in at.radio)
    assert not at.success and not at.error and not links(at)
    assert shown_score(at, right=0, answered=0)
    covered = {q.page for q in quiz.QUESTIONS}
    assert {"decoding", "variants", "ring", "inside"} <= covered
    hardware = [q for q in quiz.QUESTIONS if q.pages[0] == "hardware"]
    assert {q.id for q in hardware} == {"regs", "membound", "roofline"}          # hierarchy, memory-bound, roofline
    assert all(q.page == ("hardware" if "hardware" in pages.BY_SLUG else "blocks") for q in hardware)


@pytest.mark.parametrize("q", quiz.QUESTIONS, ids=lambda q: q.id)
def test_right_and_wrong_answers_give_feedback_and_a_link(q):
    at = open_app(QUIZ)
    answer(at, q.id, q.correct)
    assert len(at.success) == 1 and at.success[0].value.startswith("Right.")
    assert links(at) == [f"See it on “{pages.title(q.page, 'en')}”"]
    assert at.get("page_link")[0].proto.page == ("" if q.page == pages.DEFAULT else q.page)   # the default is /
    wrong = next(o for o in quiz.OPTIONS if o != q.correct)
    answer(at, q.id, wrong)
    assert not at.success and len(at.error) == 1 and at.error[0].value.startswith("Not quite.")
    assert len(links(at)) == 1


def test_score_counts_and_resets():
    at = open_app(QUIZ)
    for q in quiz.QUESTIONS[:3]:
        answer(at, q.id, q.correct)
    answer(at, quiz.QUESTIONS[3].id, next(o for o in quiz.OPTIONS if o != quiz.QUESTIONS[3].correct))
    assert shown_score(at, right=3, answered=4) and at.caption[0].value.startswith("Score: 3 /")
    for q in quiz.QUESTIONS:
        answer(at, q.id, q.correct)
    assert any("All" in s.value for s in at.success)
    at.button(key="quiz.reset").click().run()
    assert shown_score(at, right=0, answered=0) and all(r.value is None for r in at.radio)


def test_answers_survive_a_page_switch():
    at = open_app(QUIZ)
    answer(at, "alpha", "c")
    switch(at, "stepper").run()
    switch(at, QUIZ).run()
    assert at.radio(key="_w.quiz.alpha").value == "c" and shown_score(at, right=1, answered=1)


def test_chinese_renders():
    at = open_app(QUIZ, lang="zh")
    assert at.title[0].value == "自测：检验一下学到了什么"
    answer(at, "masked", "c")
    assert at.success[0].value.startswith("正确。") and "exp(−∞ − (−∞))" in at.success[0].value
    assert links(at)[0].startswith("到“")
    assert "第 1 题" in at.radio[0].label


# ----------------------------------------------------------------------------- the explanations hold in the engines

def test_a_causal_mask_alone_never_fully_masks_the_first_tile_but_padding_does():
    import numpy as np
    from dataclasses import replace
    from flashviz.engine.online_softmax import online_softmax_trace
    from flashviz.ui.config import Config, row_problem, with_preset
    for n in (1, 5, 16, 33):
        for tile in sorted({1, 2, 4, n}):
            for row in range(n):
                s, v = row_problem(Config(n=n, d=2, block_n=min(tile, n), causal=True, row=row, guard=False))
                tr = online_softmax_trace(s, v, min(tile, n), guard=False)
                assert np.isfinite(tr.tile_max[0]) and not np.isnan(tr.l).any()      # key 0 is always visible
    preset = with_preset(Config(), "masked_tile")
    s, v = row_problem(replace(preset, guard=False))
    off = online_softmax_trace(s, v, preset.block_n, guard=False)
    assert off.tile_max[0] == -np.inf and np.isnan(off.l[-1])                       # padding keys 0-3: NaN
    s_causal, _ = row_problem(replace(preset, masked=""))
    assert np.isfinite(online_softmax_trace(s_causal, v, preset.block_n, guard=False).l).all()   # causal alone: no
    on = online_softmax_trace(s, v, preset.block_n, guard=True)                     # guard: exp(−∞ − 0) = 0
    assert on.l[0] == 0 and np.abs(on.output - on.exact).max() < 1e-12
    text = quiz_text("masked_why")
    assert "every row sees key 0" in text and "exp(−∞ − 0) = 0" in text and "treat the exponent as 0" not in text


def quiz_text(key: str, lang: str = "en") -> str:
    from flashviz.i18n import t
    return t(f"quiz.{key}", lang)


def test_q1_counts_the_same_flops_as_the_speed_page():
    from flashviz.bench.spec import flops
    n, d = 1024, 64
    mult_adds = n * n * d + n * n * d                      # Q·Kᵀ (N×d by d×N) and P·V (N×N by N×d), one head
    assert flops(n, d, False, 1, 1) == 2 * mult_adds == 4 * n * n * d
    text = quiz_text("reduces_why")
    assert "2·N²·d multiply-adds per head" in text and "4·N²·d FLOPs" in text and "same N²·d" not in text


def test_q5_our_kernels_store_one_log_sum_exp_per_row_as_fa2_does():
    import torch
    import flashviz_kernels as fk
    from flashviz.bench.spec import ideal_bytes
    q, k, v = (torch.randn(1, 2, 64, 16, generator=torch.Generator().manual_seed(i)) for i in range(3))
    out, lse = fk.attention_with_lse(q, k, v, impl="teaching", block_m=32, block_n=32)
    assert lse.shape == (1, 2, 64)                           # one number per query row, not two
    ref = torch.logsumexp((q.double() @ k.double().transpose(-1, -2)) / 4.0, dim=-1)
    torch.testing.assert_close(lse.double(), ref, rtol=1e-5, atol=1e-5)
    assert ideal_bytes(64, 16, "float32", 1, 2) == 1 * 2 * 64 * 16 * 4 + 1 * 2 * 64 * 4
    why = quiz.text("memory_why", "en")
    assert "FlashAttention-1 writes both to HBM, two numbers per row" in why       # m and ℓ: tiling's FA1 count
    assert "每行两个数" in quiz.text("memory_why", "zh") and "只写一个" in quiz.text("memory_why", "zh")


# ----------------------------------------------------------------------------- the shuffle and the longest option

def _open_seeded(seed: int, lang: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    if lang:
        at.query_params["lang"] = lang
    at.session_state[quiz.SEED_KEY] = seed
    switch(at, QUIZ).run()
    assert not at.exception
    return at


def test_options_shuffle_from_the_sessions_seed_and_the_checking_follows():
    at = _open_seeded(11)
    shown = [tuple(r.options) for r in at.radio]
    want = [tuple(quiz.text(f"{q.id}_{o}", "en") for o in quiz.order(q, 11)) for q in quiz.QUESTIONS]
    assert shown == want
    at.run()
    assert [tuple(r.options) for r in at.radio] == shown                     # the same order on a rerun
    other = _open_seeded(12)
    assert [tuple(r.options) for r in other.radio] != shown                  # another session may differ
    assert quiz.order(quiz.QUESTIONS[0], 11) == quiz.order(quiz.QUESTIONS[0], 11)
    assert sorted(quiz.order(quiz.QUESTIONS[0], 11)) == list(quiz.OPTIONS)
    moved = [q for q in quiz.QUESTIONS if quiz.order(q, 11).index(q.correct) != quiz.OPTIONS.index(q.correct)]
    assert moved                                                              # some right answers changed place
    for q in moved[:3]:
        at = answer(at, q.id, q.correct)
        assert at.success[-1].value.startswith("Right.")
    first_seed = AppTest.from_file(APP, default_timeout=60)
    switch(first_seed, QUIZ).run()
    seed = first_seed.session_state[quiz.SEED_KEY]
    assert isinstance(seed, int)
    switch(first_seed, "stepper").run()
    switch(first_seed, QUIZ).run()
    assert first_seed.session_state[quiz.SEED_KEY] == seed                    # drawn once per session


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_right_option_is_the_longest_in_at_most_a_third_of_the_questions(lang):
    longest = [q.id for q in quiz.QUESTIONS
               if len(quiz.text(f"{q.id}_{q.correct}", lang)) == max(len(quiz.text(f"{q.id}_{o}", lang))
                                                                      for o in quiz.OPTIONS)]
    assert len(longest) <= len(quiz.QUESTIONS) / 3, longest
    at = _open_seeded(5, lang)                                                # measured on what the page shows
    for q, r in zip(quiz.QUESTIONS, at.radio):
        right = quiz.text(f"{q.id}_{q.correct}", lang)
        assert right in r.options and len(r.options) == 4


# ----------------------------------------------------------------------------- the numbers the explanations state

def test_decoding_numbers_are_flash_attention_2s_grid():
    f = facts()
    b, h, sms = 1, 32, 132
    assert (f["dec_b"], f["dec_h"], f["sms"]) == (b, h, sms)
    assert f["dec_p"] == b * h == 32 and f["dec_pct"] == f"{100 * 32 / 132:.0f}" == "24"
    assert f["dec_pw"] == b * h * f["dec_w"] == 128 and f["dec_pwpct"] == f"{100 * 128 / 132:.0f}"
    assert "32" in quiz.text("decode_why", "en") and "24 %" in quiz.text("decode_why", "en")


def test_ring_numbers_are_counted_here():
    f = facts()
    w, c = 4, 4                                          # four GPUs, chunks of four tokens (causal)
    pairs = lambda qi, kj: 0 if kj > qi else c * c if kj < qi else c * (c + 1) // 2       # noqa: E731
    owned = {"contiguous": [[r] for r in range(w)], "zigzag": [[r, 2 * w - 1 - r] for r in range(w)]}
    for lay, idle in (("contiguous", f["idle_c"]), ("zigzag", f["idle_z"])):
        work = [[sum(pairs(qi, kj) for qi in owned[lay][r] for kj in owned[lay][(r - s) % w]) for r in range(w)]
                for s in range(w)]
        assert idle == sum(x == 0 for row in work for x in row)
    assert (f["idle_c"], f["idle_z"], f["ring_slots"], f["ring_last"]) == (6, 0, 16, 7)
    # two GPUs, plain ring: one GPU holds q, k, v, o (8 shards of half the sequence); a ring GPU its q, k, v (3),
    # the K/V block in flight (2), an output accumulator (1), one block's output (1), zigzag-causal slices (1);
    # the float32 log-sum-exps add 4 bytes a row against 256 bytes a row of a d = 128 fp16 shard
    lse = 4 / (128 * 2)
    assert f["ring_frac"] == f"{(7 + 2 * lse) / (8 + 2 * lse):.2f}" == "0.88"
    assert f["ring_frac_z"] == f"{(8 + 2 * lse) / (8 + 2 * lse):.2f}" == "1.00"


def test_gqa_and_the_block_map_claims():
    from flashviz.engine import variants as V
    f = facts()
    assert f["gqa_ratio"] == f"{f['gqa_h'] / f['gqa_hkv']:g}" == "4"
    causal = V.block_map(V.make_variant(causal=True), 256, 32, 32).kind
    for var in (dict(softcap=0.5), dict(alibi=True, heads=8), dict(heads=8, group=4)):
        assert np.array_equal(V.block_map(V.make_variant(causal=True, **var), 256, 32, 32).kind, causal), var
    window = V.block_map(V.make_variant(causal=True, window=(64, 0)), 256, 32, 32)
    docs = V.block_map(V.make_variant(causal=True, doc_lens=(96, 64, 96)), 256, 32, 32)
    full = V.block_map(V.make_variant(causal=True), 256, 32, 32)
    assert window.run.sum() < full.run.sum() and docs.run.sum() < full.run.sum()


def test_hardware_numbers():
    from flashviz.engine.tiling import GPU_PRESETS
    f = facts()
    assert (f["regs"], f["smem"]) == (GPU_PRESETS["H200"]["registers_kib_per_sm"],
                                      GPU_PRESETS["H200"]["shared_kib_per_sm"]) == (256, 228)
    assert f["ridge"] == f"{989.4e12 / 4.8e12:.0f}" == "206"                 # H200: peak fp16 over HBM bandwidth
    n, d = 4096, 128
    flop, elems = 4 * n * n * d, 4 * n * n + 4 * n * d                        # S, P written and read; Q, K, V, O
    assert f["naive_int"] == f"{flop / (2 * elems):.0f}" == "62" and int(f["naive_int"]) < int(f["ridge"])
    assert (f["tc"], f["sfu"], f["r128"], f["r64"]) == ("4,096", 16, "0.5", "1")


def test_fa1_writes_m_and_l_per_row_fa2_one_log_sum_exp():
    """The memory question's explanation: FlashAttention-1 stores m and ℓ for every row, FlashAttention-2 one L."""
    from flashviz.engine.tiling import make_config
    from flashviz.engine.traffic import closed_form
    cfg = make_config(256, 16, br=32, bc=32)
    fa1, fa2 = closed_form(cfg, "fa1"), closed_form(cfg, "fa2")
    assert fa1.writes["m"] >= 256 and fa1.writes["l"] >= 256 and fa1.writes["L"] == 0
    assert fa2.writes["L"] == 256 and fa2.writes["m"] == fa2.writes["l"] == 0
    why = quiz.text("memory_why", "en")
    assert "FlashAttention-1 writes both" in why and "FlashAttention-2 writes one" in why


def test_the_chinese_page_has_no_english_prose():
    from helpers.zh import english_on_a_chinese_page
    at = _open_seeded(3, "zh")
    for q in quiz.QUESTIONS:                                     # every explanation shown
        at = answer(at, q.id, q.correct)
    assert not english_on_a_chinese_page(at)
