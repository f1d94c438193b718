"""Session-tree operations: unit tests and hypothesis properties over random trees."""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import fields, replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from snapshot.errors import TranscriptError
from snapshot.transcript.model import (
    Conversation,
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolCall,
    ToolResult,
    linear,
    tool_pairing,
)
from snapshot.transcript.store import Store
from snapshot.transcript.tree import (
    Checkpoint,
    add_checkpoint,
    branch,
    context_share,
    estimate_tokens,
    explored_extract,
    fork,
    is_turn_boundary,
    keyed_by_content,
    open_calls,
    reconcile_checkpoints,
    retry,
    retry_point,
    rewind,
    trim_for_resume,
    valid_cuts,
)

# --- random trees ------------------------------------------------------------------


@st.composite
def trees(draw: st.DrawFn, max_messages: int = 30, defects: bool = False) -> Conversation:
    """A random conversation tree shaped like real agent logs.

    Messages mostly continue the newest one, sometimes branch from any
    earlier message. Assistants issue 1–3 tool calls; results come back in
    later messages (``tool`` or ``user`` role), possibly split over several
    messages and possibly after other messages. With ``defects``, some results
    answer calls that never happened (as imported logs sometimes do).
    """
    messages: list[Message] = []
    parents: dict[str, str | None] = {}
    calls = 0
    if draw(st.booleans()):
        messages.append(
            Message("sys", None, "system", (TextBlock("s" * draw(st.integers(0, 300))),))
        )
        parents["sys"] = None
    n = draw(st.integers(1, max_messages))
    for i in range(n):
        if messages and draw(st.integers(0, 4)) == 0:
            parent: str | None = draw(st.sampled_from(messages)).id
        else:
            parent = messages[-1].id if messages else None
        path_msgs = []
        node = parent
        index = {m.id: m for m in messages}
        while node is not None:
            path_msgs.append(index[node])
            node = parents[node]
        waiting = list(tool_pairing(reversed(path_msgs)).unanswered_calls)
        size = draw(st.integers(0, 400))
        blocks: tuple = ()
        role = "user"
        if waiting and draw(st.integers(0, 3)) != 0:
            answered = draw(st.lists(st.sampled_from(waiting), min_size=1, unique=True))
            role = draw(st.sampled_from(["tool", "user"]))
            blocks = tuple(
                ToolResult(c, (TextBlock("r" * size),), is_error=draw(st.booleans()))
                for c in answered
            )
        else:
            kind = draw(st.sampled_from(["user", "assistant", "calls", "image", "orphan"]))
            if kind == "orphan" and not defects:
                kind = "user"
            if kind == "user":
                blocks = (TextBlock("u" * size),)
            elif kind == "image":
                blocks = (
                    TextBlock("look"),
                    ImageBlock("image/png", b"\x89PNG", width=10, height=10),
                )
            elif kind == "assistant":
                role = "assistant"
                blocks = (ThinkingBlock("t" * (size // 3)), TextBlock("a" * size))
            elif kind == "orphan":
                role = "tool"
                blocks = (ToolResult(f"ghost{i}", (TextBlock("?"),)),)
            else:
                role = "assistant"
                k = draw(st.integers(1, 3))
                new = []
                for _ in range(k):
                    calls += 1
                    new.append(ToolCall(f"call{calls}", "bash", {"cmd": "x" * (size // 4)}))
                blocks = (TextBlock("a" * (size // 2)), *new)
        mid = f"m{i}"
        messages.append(Message(mid, parent, role, blocks))  # type: ignore[arg-type]
        parents[mid] = parent
    tip = draw(st.sampled_from(messages)).id
    return Conversation("conv", tuple(messages), tip, meta={"note": "x"})


def all_ids(conv: Conversation) -> set[str]:
    ids = {m.id for m in conv.messages}
    for m in conv.messages:
        for b in m.blocks:
            if isinstance(b, ToolCall):
                ids.add(b.id)
            elif isinstance(b, ToolResult):
                ids.add(b.call_id)
    return ids


def boundary_checkpoints(conv: Conversation, picks: list[int]) -> tuple[Checkpoint, ...]:
    """Checkpoints on clean turn boundaries anywhere in the tree (also on abandoned branches)."""
    clean = [m.id for m in conv.messages if is_turn_boundary(conv, m.id)]
    if not clean:
        return ()
    return tuple(Checkpoint(f"cp{k}", clean[p % len(clean)]) for k, p in enumerate(picks))


PROPS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --- properties ---------------------------------------------------------------------


@PROPS
@given(conv=trees(defects=True), budget=st.integers(0, 3000))
def test_trimming_never_yields_an_orphan_tool_result(conv: Conversation, budget: int) -> None:
    before = set(tool_pairing(conv.path()).orphan_results)
    trim = trim_for_resume(conv, budget)
    kept = trim.conversation
    # What the trim keeps is a valid conversation with the same tip ...
    assert kept.tip == conv.tip
    path = kept.path()
    assert len(path) == len(kept.messages)  # only the live path survives
    # ... and every result it keeps still has its call (defects already in the
    # source stay what they were: the trim creates no new orphan).
    after = set(tool_pairing(path).orphan_results)
    assert after <= before
    # The kept tail is a suffix of the old path after the pinned system prompt.
    old_ids = [m.id for m in conv.path()]
    new_ids = [m.id for m in path]
    pinned = 1 if old_ids and old_ids[0] == "sys" else 0
    assert new_ids[:pinned] == old_ids[:pinned]
    tail = new_ids[pinned:]
    assert tail == old_ids[len(old_ids) - len(tail) :]
    # Within budget unless even the smallest sendable tail is too big.
    assert trim.tokens == sum(estimate_tokens(m) for m in path)
    if not trim.over_budget:
        assert trim.tokens <= budget


@PROPS
@given(conv=trees(defects=True), budget=st.integers(0, 3000))
def test_trim_keeps_as_much_as_the_budget_allows(conv: Conversation, budget: int) -> None:
    """Brute force: no longer orphan-free tail would also have fit."""
    old = list(conv.path())
    pinned = 1 if old and old[0].role == "system" else 0
    before = set(tool_pairing(old).orphan_results)
    trim = trim_for_resume(conv, budget)
    kept_len = len(trim.conversation.messages) - pinned
    for start in range(pinned, len(old) - kept_len):
        candidate = old[:pinned] + old[start:]
        if set(tool_pairing(candidate).orphan_results) <= before:
            assert sum(estimate_tokens(m) for m in candidate) > budget


@PROPS
@given(conv=trees(), at=st.integers(0, 100), fresh=st.sampled_from(["f1", "conv2", "m3"]))
def test_fork_shares_no_id_with_its_source(conv: Conversation, at: int, fresh: str) -> None:
    target = conv.messages[at % len(conv.messages)].id
    forked = fork(conv, fresh, at=target)
    assert forked.id == fresh != conv.id
    assert not all_ids(forked) & all_ids(conv)
    assert not {id(m) for m in forked.messages} & {id(m) for m in conv.messages}
    # The copy is the path to the fork point, block for block, in a fresh tree.
    src_path = conv.path(target)
    new_path = forked.path()
    assert len(new_path) == len(src_path) == len(forked.messages)
    for a, b in zip(src_path, new_path, strict=True):
        assert (a.role, a.text(), a.chars()) == (b.role, b.text(), b.chars())
    old_pairs = tool_pairing(src_path)
    new_pairs = tool_pairing(new_path)
    assert len(old_pairs.unanswered_calls) == len(new_pairs.unanswered_calls)
    assert len(old_pairs.orphan_results) == len(new_pairs.orphan_results)
    # The source is untouched.
    assert conv.tip == conv.tip and conv.messages is conv.messages


@PROPS
@given(conv=trees(), to=st.integers(0, 100))
def test_a_branch_changes_nothing_but_the_tip(conv: Conversation, to: int) -> None:
    target = conv.messages[to % len(conv.messages)].id
    moved = branch(conv, target)
    assert moved.tip == target
    assert moved.messages is conv.messages  # the very same rows, abandoned path included
    for f in fields(Conversation):
        if f.name != "tip":
            assert getattr(moved, f.name) == getattr(conv, f.name), f.name
    # Switching back is another move and restores the original exactly.
    assert branch(moved, conv.tip or target) == conv


@PROPS
@given(
    conv=trees(),
    budget=st.integers(0, 3000),
    picks=st.lists(st.integers(0, 1000), max_size=6),
)
def test_a_trimmed_away_checkpoint_is_dropped_never_snapped(
    conv: Conversation, budget: int, picks: list[int]
) -> None:
    cps = boundary_checkpoints(conv, picks)
    trim = trim_for_resume(conv, budget, checkpoints=cps)
    report = trim.checkpoints
    survivors = {m.id for m in trim.conversation.messages}
    # Every checkpoint is accounted for exactly once, kept ones unchanged.
    assert len(report.kept) + len(report.dropped) == len(cps)
    for c in report.kept:
        assert c in cps  # same label, same message: never moved
        assert c.message in survivors
        assert is_turn_boundary(trim.conversation, c.message)  # still a clean boundary
    for d in report.dropped:
        assert d.checkpoint in cps
        assert d.checkpoint.message not in survivors
        assert "trimmed away" in d.reason
    assert {c.label for c in report.kept} == {c.label for c in cps if c.message in survivors}


@PROPS
@given(conv=trees(), at=st.integers(0, 100))
def test_checkpoints_only_go_on_clean_turn_boundaries(conv: Conversation, at: int) -> None:
    target = conv.messages[at % len(conv.messages)].id
    if open_calls(conv, target):
        with pytest.raises(TranscriptError, match="mid-turn"):
            add_checkpoint(conv, (), "x", at=target)
    else:
        assert add_checkpoint(conv, (), "x", at=target) == (Checkpoint("x", target),)


@PROPS
@given(conv=trees(), picks=st.lists(st.integers(0, 1000), min_size=1, max_size=4))
def test_rewind_moves_only_the_tip_and_records_the_abandoned_path(
    conv: Conversation, picks: list[int]
) -> None:
    cps = boundary_checkpoints(conv, picks)
    if not cps:
        return
    result = rewind(conv, cps, cps[0].label)
    new = result.conversation
    assert new.tip == cps[0].message
    assert new.messages is conv.messages  # the explored path stays in the tree
    target_path = {m.id for m in conv.path(cps[0].message)}
    assert result.abandoned == tuple(m.id for m in conv.path() if m.id not in target_path)
    record = new.meta["rewinds"][-1]
    assert record["from"] == conv.tip and record["to"] == cps[0].message
    assert record["extract"] == result.extract and len(result.extract) <= 600


# --- unit tests ----------------------------------------------------------------------


def _agent_log() -> Conversation:
    return Conversation(
        "c",
        (
            Message("s", None, "system", (TextBlock("S" * 40),)),
            Message("u1", "s", "user", (TextBlock("U" * 400),)),
            Message("a1", "u1", "assistant", (ToolCall("k1", "bash", {"c": "A" * 400}),)),
            Message("r1", "a1", "tool", (ToolResult("k1", (TextBlock("R" * 4000),)),)),
            Message("a2", "r1", "assistant", (TextBlock("done"),)),
        ),
        "a2",
    )


def test_trim_never_starts_at_a_result_whose_call_was_cut() -> None:
    conv = _agent_log()
    # 4000 result chars ≈ 1000 tokens: a budget that fits r1+a2 but not a1 too.
    trim = trim_for_resume(conv, 1020)
    ids = [m.id for m in trim.conversation.path()]
    assert ids == ["s", "a2"]  # r1 cannot lead: its call a1 would be gone
    assert trim.conversation.get("a2").parent == "s"  # re-rooted under the system prompt
    assert trim.conversation.meta["resume_trim"]["first_kept"] == "a2"
    assert set(trim.dropped) == {"u1", "a1", "r1"}


def test_trim_keeps_everything_when_it_fits_and_returns_the_same_object() -> None:
    conv = _agent_log()
    trim = trim_for_resume(conv, 10_000)
    assert trim.conversation is conv and trim.dropped == () and not trim.over_budget


def test_trim_over_budget_keeps_the_smallest_sendable_tail() -> None:
    conv = linear(
        "c",
        [
            ("u", "user", [TextBlock("x")]),
            ("a", "assistant", [ToolCall("k", "bash", {})]),
            ("r", "tool", [ToolResult("k", (TextBlock("R" * 9000),))]),
        ],
    )
    trim = trim_for_resume(conv, 10)
    assert [m.id for m in trim.conversation.path()] == ["a", "r"]
    assert trim.over_budget


def test_trim_drops_abandoned_branches_and_their_checkpoints() -> None:
    conv = branch(_agent_log(), "r1")
    conv = conv.with_messages(
        [*conv.messages, Message("b", "r1", "assistant", (TextBlock("alt"),))], "b"
    )
    cps = (Checkpoint("old", "a2"), Checkpoint("new", "b"))
    trim = trim_for_resume(conv, 10_000, checkpoints=cps)
    assert "a2" in trim.dropped
    assert trim.checkpoints.kept == (Checkpoint("new", "b"),)
    assert [d.checkpoint.label for d in trim.checkpoints.dropped] == ["old"]


def test_trim_rejects_a_negative_budget() -> None:
    with pytest.raises(TranscriptError, match="negative"):
        trim_for_resume(_agent_log(), -1)


def test_trim_uses_the_given_estimate() -> None:
    trim = trim_for_resume(_agent_log(), 3, estimate=lambda m: 1)
    # One token a message: s + a1 + r1 + a2 would be 4; r1 cannot lead without a1.
    assert [m.id for m in trim.conversation.path()] == ["s", "a2"]
    assert trim.tokens == 2


def test_valid_cuts_forbid_the_span_between_call_and_result() -> None:
    conv = _agent_log()
    assert valid_cuts(conv.path(), 1) == [False, True, True, False, True]


def test_estimate_is_chars_over_four_plus_images() -> None:
    m = Message("x", None, "user", (TextBlock("abcde"), ImageBlock("image/png", b"1")))
    assert estimate_tokens(m) == 2 + 1200


def test_fork_of_an_empty_conversation_and_bad_requests() -> None:
    empty = Conversation("c", (), None)
    assert fork(empty, "d").messages == ()
    with pytest.raises(TranscriptError, match="new conversation id"):
        fork(_agent_log(), "c")
    with pytest.raises(TranscriptError, match="no message 'nope'"):
        fork(_agent_log(), "d", at="nope")


def test_fork_records_where_it_came_from_and_is_deterministic() -> None:
    f1 = fork(_agent_log(), "d", at="r1")
    assert f1.meta["forked_from"] == {"conversation": "c", "agent": "main", "at": "r1"}
    assert fork(_agent_log(), "d", at="r1") == f1
    assert tool_pairing(f1.path()).ok


def test_branch_to_an_unknown_message_is_a_clear_error() -> None:
    with pytest.raises(TranscriptError, match="no message 'zz'"):
        branch(_agent_log(), "zz")


def test_checkpoint_errors() -> None:
    conv = _agent_log()
    cps = add_checkpoint(conv, (), "start", at="u1")
    with pytest.raises(TranscriptError, match="already exists"):
        add_checkpoint(conv, cps, "start")
    for bad in ("", "a\nb", "x" * 201):
        with pytest.raises(TranscriptError):
            add_checkpoint(conv, cps, bad)
    with pytest.raises(TranscriptError, match="no messages"):
        add_checkpoint(Conversation("e", (), None), (), "x")
    with pytest.raises(TranscriptError, match="no checkpoint labelled 'nope'"):
        rewind(conv, cps, "nope")


def test_rewind_refuses_a_checkpoint_whose_message_is_gone() -> None:
    with pytest.raises(TranscriptError, match="no longer in conversation"):
        rewind(_agent_log(), (Checkpoint("x", "gone"),), "x")


def test_reconcile_drops_without_moving() -> None:
    report = reconcile_checkpoints(_agent_log(), (Checkpoint("a", "a1"), Checkpoint("b", "zz")))
    assert report.kept == (Checkpoint("a", "a1"),)
    assert report.dropped[0].checkpoint == Checkpoint("b", "zz")


def test_explored_extract_names_prompts_tools_and_last_words() -> None:
    conv = _agent_log()
    text = explored_extract(conv.path()[1:])
    assert "4 messages" in text and "'UUUU" in text and "bash" in text and "'done'" in text
    assert explored_extract(()).startswith("nothing")
    huge = [Message(f"m{i}", None, "user", (TextBlock("p" * 500),)) for i in range(50)]
    assert len(explored_extract(huge)) <= 600


def test_rewind_keeps_a_bounded_history() -> None:
    conv = _agent_log()
    cps = add_checkpoint(conv, (), "start", at="u1")
    for _ in range(30):
        conv = rewind(branch(conv, "a2"), cps, "start").conversation
    assert len(conv.meta["rewinds"]) == 20
    assert conv.meta["rewinds"][-1]["abandoned"] == 3


def test_retry_tells_not_loaded_from_nothing_to_retry() -> None:
    assert retry_point(None).status == "not_loaded"
    assert "no conversation is loaded" in retry_point(None).reason
    assert retry_point(Conversation("e", (), None)).status == "nothing"
    only_system = linear("s", [("s", "system", [TextBlock("sys")])])
    nothing = retry_point(only_system)
    assert nothing.status == "nothing" and "no user prompt" in nothing.reason
    point = retry_point(_agent_log())
    assert point.ready and point.message == "u1" and "3 messages" in point.reason
    assert retry(_agent_log()).tip == "u1"
    pending = branch(_agent_log(), "u1")
    assert "no reply yet" in retry_point(pending).reason
    with pytest.raises(TranscriptError, match="no conversation is loaded"):
        retry(None)


def test_a_tool_result_in_a_user_message_is_not_a_prompt() -> None:
    conv = _agent_log()
    msgs = list(conv.messages)
    msgs[3] = replace(msgs[3], role="user")
    conv = conv.with_messages(msgs, "a2")
    assert retry_point(conv).message == "u1"


def test_context_share_sorts_chars_by_kind() -> None:
    conv = _agent_log()
    msgs = [*conv.messages, Message("i", "a2", "user", (ImageBlock("image/png", b"12"),))]
    share = context_share(conv.with_messages(msgs, "i").path())
    assert share.chars["system"] == 40 and share.chars["user"] == 400
    assert share.chars["tool results"] == 4000 and share.chars["assistant"] == 4
    assert share.chars["tool calls"] > 400
    assert [k for k, _ in share.images] == ["user"]


# --- a random session: operations in any order --------------------------------------------


class Session(RuleBasedStateMachine):
    """Branch, fork, checkpoint, rewind, trim and append in random order, saving when clean.

    After every step: every checkpoint still names the message it was put on
    (trims drop labels, nothing moves them), the live path has no orphan tool
    result, and a conversation at a clean tip round-trips through the store
    together with its checkpoints.
    """

    def __init__(self) -> None:
        super().__init__()
        self.store = Store(tempfile.mkdtemp(prefix="snapshot-session-"))
        self.conv = Conversation("s", (), None)
        self.cps: tuple[Checkpoint, ...] = ()
        self.labels: dict[str, str] = {}  # label -> the message it was put on, forever
        self.counter = 0

    @initialize(conv=trees())
    def start(self, conv: Conversation) -> None:
        self.conv = replace(conv, id="s")

    def _pick(self, k: int) -> str:
        return self.conv.messages[k % len(self.conv.messages)].id

    @rule(k=st.integers(0, 1000))
    def do_branch(self, k: int) -> None:
        before = self.conv
        self.conv = branch(before, self._pick(k))
        assert self.conv.messages is before.messages

    @rule(k=st.integers(0, 1000))
    def do_checkpoint(self, k: int) -> None:
        target = self._pick(k)
        label = f"l{self.counter}"
        self.counter += 1
        if open_calls(self.conv, target):
            with pytest.raises(TranscriptError):
                add_checkpoint(self.conv, self.cps, label, at=target)
            return
        self.cps = add_checkpoint(self.conv, self.cps, label, at=target)
        self.labels[label] = target

    @precondition(lambda self: bool(self.cps))
    @rule(k=st.integers(0, 1000))
    def do_rewind(self, k: int) -> None:
        cp = self.cps[k % len(self.cps)]
        result = rewind(self.conv, self.cps, cp.label)
        assert result.conversation.tip == cp.message
        assert result.conversation.messages is self.conv.messages
        self.conv = result.conversation

    @rule(k=st.integers(0, 1000), adopt=st.booleans())
    def do_fork(self, k: int, adopt: bool) -> None:
        forked = fork(self.conv, "f", at=self._pick(k))
        assert not all_ids(forked) & all_ids(self.conv)
        if adopt:  # continue in the fork: no checkpoint can follow (fresh ids)
            self.conv = replace(forked, id="s")
            report = reconcile_checkpoints(self.conv, self.cps)
            assert report.kept == ()
            self.cps = ()

    @rule(budget=st.integers(0, 2000))
    def do_trim(self, budget: int) -> None:
        trim = trim_for_resume(self.conv, budget, checkpoints=self.cps)
        assert not tool_pairing(trim.conversation.path()).orphan_results
        assert set(trim.checkpoints.kept) <= set(self.cps)
        for d in trim.checkpoints.dropped:
            assert d.checkpoint.message not in trim.conversation.index
        self.conv, self.cps = trim.conversation, trim.checkpoints.kept

    @rule(size=st.integers(0, 300), with_call=st.booleans())
    def do_append(self, size: int, with_call: bool) -> None:
        """Continue from the tip: answer any open call first, then a prompt or a tool round."""
        msgs = list(self.conv.messages)
        tip = self.conv.tip
        waiting = open_calls(self.conv) if tip is not None else ()
        n = self.counter
        self.counter += 1
        if waiting:
            results = tuple(ToolResult(c.id, (TextBlock("r" * size),)) for c in waiting)
            msgs.append(Message(f"x{n}r", tip, "tool", results))
            tip = f"x{n}r"
        if with_call:
            msgs.append(Message(f"x{n}a", tip, "assistant", (ToolCall(f"k{n}", "bash", {}),)))
            msgs.append(Message(f"x{n}b", f"x{n}a", "tool", (ToolResult(f"k{n}", ()),)))
            tip = f"x{n}b"
        else:
            msgs.append(Message(f"x{n}u", tip, "user", (TextBlock("u" * size),)))
            tip = f"x{n}u"
        self.conv = self.conv.with_messages(msgs, tip)

    @invariant()
    def labels_never_move(self) -> None:
        for c in self.cps:
            assert c.message == self.labels[c.label]
            assert c.message in self.conv.index

    @invariant()
    def no_orphans_and_clean_states_round_trip(self) -> None:
        if self.conv.tip is None:
            return
        assert not tool_pairing(self.conv.path()).orphan_results
        if not open_calls(self.conv):
            self.store.save_all(self.conv, self.cps)
            assert self.store.load("s") == self.conv
            assert self.store.load_checkpoints("s") == self.cps

    def teardown(self) -> None:
        shutil.rmtree(self.store.root, ignore_errors=True)


Session.TestCase.settings = settings(
    max_examples=25,
    stateful_step_count=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
test_random_sessions = Session.TestCase


# --- identity by content -------------------------------------------------------------


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(trees(), st.integers(0, 40))
def test_keyed_by_content_keeps_the_tree_and_reuse_changes_nothing(
    conv: Conversation, cut: int
) -> None:
    keyed = keyed_by_content(conv)
    renamed = {a.id: b.id for a, b in zip(conv.messages, keyed.messages, strict=False)}
    if len(keyed.messages) == len(conv.messages):  # nothing merged: the same tree, renamed
        assert [renamed.get(m.parent) if m.parent else None for m in conv.messages] == [
            m.parent for m in keyed.messages
        ]
        assert [m.text() for m in conv.path()] == [m.text() for m in keyed.path()]
    assert keyed_by_content(keyed).tip == keyed_by_content(conv).tip  # ids are content's
    # An earlier turn (a prefix of the messages) given as ``previous`` changes nothing.
    earlier = conv.with_messages(conv.messages[:cut], None)
    hint = (earlier.messages, keyed_by_content(earlier).messages)
    again = keyed_by_content(conv, previous=hint)
    assert [(m.id, m.parent) for m in again.messages] == [(m.id, m.parent) for m in keyed.messages]
    assert again.tip == keyed.tip


def test_a_changed_message_gets_a_new_id_and_so_does_what_follows() -> None:
    a = linear("c", [("m0", "user", [TextBlock("hi")]), ("m1", "user", [TextBlock("go")])])
    b = linear("c", [("m0", "user", [TextBlock("hey")]), ("m1", "user", [TextBlock("go")])])
    ka, kb = keyed_by_content(a), keyed_by_content(b)
    assert not {m.id for m in ka.messages} & {m.id for m in kb.messages}
    # A call message is known by its call ids: an edited echo continues the same message.
    call = ToolCall("toolu_9", "Bash", {"command": "ls"})
    edited = ToolCall("toolu_9", "Bash", {"command": "ls -la"})
    c1 = linear("c", [("m0", "user", [TextBlock("hi")]), ("m1", "assistant", [call])])
    c2 = linear("c", [("m0", "user", [TextBlock("hi")]), ("m1", "assistant", [edited])])
    assert keyed_by_content(c1).tip == keyed_by_content(c2).tip
    # Without call ids (Gemini), name and arguments count, the ids do not.
    linked = ToolCall("run_shell-1", "Bash", {"command": "ls"})
    c3 = linear("c", [("m0", "user", [TextBlock("hi")]), ("m1", "assistant", [linked])])
    assert keyed_by_content(c1, call_ids=False).tip == keyed_by_content(c3, call_ids=False).tip
    assert keyed_by_content(c1).tip != keyed_by_content(c3).tip
