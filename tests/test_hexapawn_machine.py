"""Gardner's HER (and HIM) through every front-end command, as a user would run them."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from menace.app.sweep import SweepSetting, run_sweep, summarize
from menace.cli import cli
from menace.core.settings import GARDNER
from menace.games import find_game
from menace.render import labels as L

HEXAPAWN = find_game("hexapawn")


def run(db: Path, *args: str, input: str | None = None, code: int = 0) -> str:
    result = CliRunner().invoke(cli, ["--db", str(db), *args], input=input)
    assert result.exit_code == code, result.output
    return result.output


def test_init_tournament_check(tmp_path: Path) -> None:
    db = tmp_path / "her.db"
    out = run(db, "init", "--game", "hexapawn")
    assert "19 boxes (2 + 10 + 7 by move)" in out and "Hexapawn, gardner" in out
    out = run(db, "-m", "him", "init", "--game", "hexapawn", "--side", "white")
    assert "18 boxes (1 + 5 + 10 + 2 by move)" in out
    run(db, "tournament", "--vs", "random", "-n", "2000", "--seed", "1")
    assert "OK (menace; 2,000 games replayed" in run(db, "check")
    assert "games          2,000" in run(db, "stats")
    # The tic-tac-toe players are refused for Hexapawn, with the ones that can play it named.
    out = run(db, "tournament", "--vs", "smart", "-n", "5", code=2)  # a bad --vs, as an unknown opponent
    assert "smart plays tictactoe only" in out and "random, perfect" in out


def test_history_replay_undo_export_import(tmp_path: Path) -> None:
    db = tmp_path / "her.db"
    run(db, "init", "--game", "hexapawn")
    run(db, "tournament", "--vs", "perfect", "-n", "50", "--seed", "3")
    assert "a3-" in run(db, "history", "--last", "3") or "b3-" in run(db, "history", "--last", "3")
    assert "opens box" in run(db, "replay", "1")
    run(db, "export", str(tmp_path / "her.json"))
    run(db, "undo", "--games", "5")
    assert "45 games replayed" in run(db, "check")
    run(db, "import", str(tmp_path / "her.json"), "--as", "copy")
    assert "50 games replayed" in run(db, "-m", "copy", "check")
    run(db, "-m", "copy", "export", str(tmp_path / "again.json"))
    first = (tmp_path / "her.json").read_text().replace('"name": "menace"', '"name": "copy"')
    assert '"game": "hexapawn"' in first


def test_a_person_plays_her_at_the_terminal(tmp_path: Path) -> None:
    db = tmp_path / "her.db"
    run(db, "init", "--game", "hexapawn")
    # White pushes every pawn it can; illegal and malformed moves get a new prompt.
    moves = ["a1-a3", "x9", "a1-a2", "b1-b2", "c1-c2", "a2-a3", "b2-b3", "c2-c3", "b1-a2", "c1-b2"] * 3
    out = run(db, "play", "--games", "1", input="\n".join(moves) + "\n")
    assert "You are White; MENACE ('menace') is Black." in out
    assert "MENACE opens box" in out and ("MENACE wins." in out or "You win!" in out)
    assert "not a legal move here" in out or "is not" in out
    assert "1 game replayed" in run(db, "check")


def scripted_operated_game() -> tuple[str, int]:
    """Input for ``menace operate`` on a fresh HER: White plays its first legal move, the operator
    always reports the box's first colour (A, amber); and the number of moves."""
    from menace.core.game import Side
    from menace.core.learner import Learner, build_boxes

    learner = Learner(HEXAPAWN, GARDNER, build_boxes(HEXAPAWN, GARDNER))
    state, lines, moves = HEXAPAWN.initial(), [], 0
    while HEXAPAWN.outcome(state) is None:
        if HEXAPAWN.to_move(state) is Side.X:
            move = HEXAPAWN.legal_moves(state)[0]
            lines.append(HEXAPAWN.move_name(move))
        else:
            found = learner.box_for(state)
            assert found is not None
            index, real = found
            first = HEXAPAWN.legal_moves(learner.boxes[index].position)[0]  # colour 0 of the box
            move = real[first]
            lines.append("A")
        state = HEXAPAWN.play(state, move)
        moves += 1
    return "\n".join(lines) + "\n", moves


def test_operate_a_physical_her(tmp_path: Path) -> None:
    db = tmp_path / "her.db"
    run(db, "init", "--game", "hexapawn")
    script, _ = scripted_operated_game()
    out = run(db, "operate", input=script)
    assert "Open box 1" in out or "Open box 2" in out
    assert "Bead ledger" in out and "amber (A) means" in out.replace("Amber", "amber")
    assert "1 game replayed" in run(db, "check")


def test_labels_print_a_her_kit_of_19_labels(tmp_path: Path) -> None:
    db = tmp_path / "her.db"
    run(db, "init", "--game", "hexapawn")
    out = run(db, "labels", "--out", str(tmp_path / "her.pdf"))
    assert "19 labels" in out and "45 beads to fill" in out
    assert (tmp_path / "her.pdf").read_bytes().startswith(b"%PDF")
    from menace.core.learner import build_boxes

    boxes = build_boxes(HEXAPAWN, GARDNER)
    shopping = L.shopping_list(HEXAPAWN, boxes, spare_percent=0)
    assert [line.square for line in shopping.lines][0] == "a box's 1st move"
    assert shopping.fill == sum(b.total for b in boxes) == 45
    run(db, "plot", "boxes", "-o", str(tmp_path / "wall.png"))


def test_her_stops_losing_to_a_perfect_player_over_200_seeds() -> None:
    result = run_sweep([SweepSetting("gardner", GARDNER)], "perfect", games=100, seeds=200, workers=1,
                       eval_games=0, game="hexapawn")
    row = summarize(result)[0]
    # Every one of the 200 machines stops losing within the 100 games, and loses none of the last 20.
    assert row.last_loss_max < 100 and row.last == (1000.0, 0.0, 0.0)
    assert row.last_loss_median is not None and row.last_loss_median < 10


def test_replay_ledger_under_gardners_rule_names_only_the_last_bead(tmp_path: Path) -> None:
    """Under last-bead scope a lost game takes one bead, from the last box opened: the replay's
    ledger lists that bead only, not every box opened with a +0 as if the rule had spared them."""
    db = tmp_path / "her.db"
    run(db, "init", "--game", "hexapawn")
    run(db, "tournament", "--vs", "random", "-n", "30", "--seed", "1")
    lost = [line.split()[0] for line in run(db, "history").splitlines() if " loss " in line]
    assert lost, "seed 1 gives HER at least one loss in 30 games"
    out = run(db, "replay", lost[0])
    opened = out.count("opens box")
    assert opened >= 2
    tail = out[out.index("Result:"):].splitlines()
    assert "on the last bead drawn" in tail[0] and "per bead drawn" not in tail[0]
    ledger = [line for line in tail[1:] if line.strip().startswith("box")]
    assert len(ledger) == 1 and "(-1)" in ledger[0], tail
