"""SDK views and actions agree with the rules engines, field by field and code by code."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from referee.games import IllegalActionError, new_match
from referee.games.crazy_eights import actions as A
from referee.match_wire import GameCodec
from talon_sdk._proto.talon.v1 import game_pb2 as gpb
from talon_sdk.client import encode_action
from talon_sdk.rummy_views import RummyAction
from talon_sdk.views import EightsAction, make_view


def _request(state, codec):
    seat = state.current_player
    return codec.request(7, 3, 1000, 500, state.view(seat), state.legal_actions(), True, []).request


def test_every_eights_code_prints_and_parses_like_the_engine():
    codes = [A.DRAW, A.PASS, A.STOP] + [A.NAME_SUIT + s for s in range(4)]
    codes += [A.play_action(c, n, bool(f)) for c in range(52) for n in range(5) for f in (0, 1)]
    for code in codes:
        action = EightsAction(code)
        assert str(action) == A.action_name(code)
        assert EightsAction.parse(str(action)) == code
        assert action.is_play == (code >= A.PLAY)


def test_a_bad_action_text_names_the_forms():
    with pytest.raises(ValueError, match="forms: draw, pass"):
        EightsAction.parse("jump")


@pytest.mark.parametrize("preset,players", [("classic", 2), ("house", 4), ("countdown", 3)])
def test_the_eights_view_carries_exactly_the_engine_view(preset, players):
    state = new_match("crazy-eights", preset, players, 5)
    codec = GameCodec("crazy-eights")
    rng = random.Random(1)
    for _ in range(300):
        if state.is_over:
            break
        view = make_view(_request(state, codec))
        expected = state.view(state.current_player)
        for key, value in expected.items():
            if key == "game":
                continue
            got = getattr(view, key)
            want = tuple(tuple(v) for v in value) if key == "hand_scores" else (
                tuple(value) if isinstance(value, list) else value)
            assert got == want, key
        assert list(view.legal_actions) == list(state.legal_actions())
        assert view.decision.deadline_ms == 1000 and view.decision.time_bank_ms == 500
        state.apply(rng.choice(state.legal_actions()))


@pytest.mark.parametrize("overrides", [{}, {"discard_take_must_meld": True}, {"reclaimed_wild_must_be_used": True}])
def test_the_rummy_view_and_its_options_agree_with_the_engine(overrides):
    """Every meld, lay-off and exchange the SDK's helpers offer is legal, whatever the seat's
    state: not opened yet, a card that must go down first, a one-card turn."""
    from referee.games import make_rules

    codec = GameCodec("crazy-rummy")
    rules = make_rules("crazy-rummy", "standard", overrides)
    switches = json.loads(json.dumps(rules.switches()))
    checked = {"meld": 0, "lay_off": 0, "exchange": 0}
    for seed in range(6):
        state = new_match("crazy-rummy", rules, 3, seed)
        rng = random.Random(seed)
        for _ in range(400):
            if state.is_over:
                break
            view = make_view(_request(state, codec), switches)
            assert list(view.hand) == state.view(state.current_player)["hand"]
            assert list(view.legal_actions) == list(state.legal_actions())
            if view.phase == "table":
                for kind, options in (("meld", view.meld_options()), ("lay_off", view.lay_off_options()),
                                      ("exchange", view.exchange_options())):
                    for option in options[:4]:
                        trial = state.clone()
                        try:
                            trial.apply(option)
                        except IllegalActionError as err:
                            if kind == "exchange" and overrides.get("reclaimed_wild_must_be_used"):
                                continue  # documented: the list does not check where the wild could go
                            raise AssertionError(f"the SDK offered {option}: {err}") from None
                        checked[kind] += 1
            state.apply(rng.choice(state.legal_actions()))
    assert checked["meld"] > 0 and checked["lay_off"] > 0, checked


def test_encode_action_takes_actions_text_and_rummy_tuples():
    assert encode_action(EightsAction(0)) == gpb.Action(crazy_eights=0)
    assert encode_action("play 8H name S") == gpb.Action(text="play 8H name S")
    rummy = encode_action(RummyAction(8, (5,)))
    assert rummy.crazy_rummy.kind == 8 and list(rummy.crazy_rummy.cards) == [5]
    with pytest.raises(TypeError, match="return one of view.legal_actions"):
        encode_action(None)


def test_run_without_the_environment_says_what_to_set():
    code = ("from talon_sdk import Bot, run\n"
            "class First(Bot):\n"
            "    def decide(self, view):\n"
            "        return view.legal_actions[0]\n"
            "run(First)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={"PATH": "/usr/bin"},
                          timeout=60)
    assert proc.returncode == 1
    assert "set TALON_ADDRESS and TALON_TOKEN" in proc.stderr
