"""``menace experiment``: Michie's published Pegasus runs of 1963, run again and drawn beside the paper."""

from __future__ import annotations

import sys
from fractions import Fraction
from pathlib import Path

import click

from menace.core.pegasus import PegasusRule, PegasusSettingsError, Refinement, parse_fraction


def _fraction(text: str, what: str) -> Fraction:
    try:
        return parse_fraction(text, what)
    except PegasusSettingsError as exc:
        raise click.BadParameter(str(exc)) from None


def _pct(x: Fraction) -> str:
    return f"{float(x):5.1f}"


@click.command()
@click.argument("name", metavar="NAME")
@click.option("--seeds", type=click.IntRange(1, 10_000), default=50, show_default=True,
              help="How many independent runs (seeds 0, 1, ...).")
@click.option("--plays", type=click.IntRange(100, 1_000_000), default=1000, show_default=True,
              help="Plays per run (a multiple of 100).")
@click.option("--first-seed", type=click.IntRange(min=0), default=0, show_default=True, help="The first seed.")
@click.option("--a", "a_text", default="1.025", show_default=True, metavar="A", help="The rule's A (M_8 = A).")
@click.option("--b", "b_text", default="2", show_default=True, metavar="B", help="The rule's B.")
@click.option("--refine", type=click.Choice([r.value for r in Refinement]), default="none", show_default=True,
              help="Table 3's refined rule: per-100 (Michie's approximation) or per-play (the ideal).")
@click.option("--decay", "decay_text", default="0.5", show_default=True, metavar="D",
              help="Table 3's decay factor D.")
@click.option("-o", "--out", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE",
              help="Write the figure here (.png, .svg or .pdf) [default: NAME.png].")
@click.option("--no-figure", is_flag=True, help="Print the table only.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar.")
def experiment(name: str, seeds: int, plays: int, first_seed: int, a_text: str, b_text: str, refine: str,
               decay_text: str, out: Path | None, no_figure: bool, quiet: bool) -> None:
    """Run one of Michie's published Pegasus experiments (The Computer Journal 6(3), 1963,
    pp. 232-236) over many seeds; print the table and draw the figure beside the paper's values.

    NAME is michie-1963-fig7 (the opening player learns, the other plays at random),
    michie-1963-fig8 (the second player learns), michie-1963-fig9 (both learn: which line of
    play emerges) or michie-1963-random (the exact random-versus-random baseline). fig7, fig8,
    fig9 and random are short for them.

    \b
    Examples:
      menace experiment michie-1963-fig7 --seeds 50 -o fig7.pdf
      menace experiment fig9 --plays 2000
      menace experiment random
    """
    from menace.app.experiments import find_experiment, run_experiment
    from menace.core.michie1963 import CITATION

    found = find_experiment(name)
    if plays % 100:
        raise click.BadParameter(f"plays come in blocks of 100, not {plays}", param_hint="'--plays'")
    try:
        rule = PegasusRule(a=_fraction(a_text, "A"), b=_fraction(b_text, "B"), refinement=Refinement(refine),
                           decay=_fraction(decay_text, "D"))
    except PegasusSettingsError as exc:
        raise click.UsageError(str(exc)) from None
    if out is None and not no_figure and found.learners:
        out = Path(f"{found.name}.png")
    if out is not None:
        from menace.render.plots import output_format

        output_format(out)  # a wrong extension is refused before the runs
    if found.learners and not quiet and sys.stderr.isatty():
        with click.progressbar(length=seeds * plays, label=f"{found.name}: {seeds} seeds", file=sys.stderr) as bar:
            done = [0]

            def progress(n: int, _total: int) -> None:
                bar.update(n - done[0])
                done[0] = n

            result = run_experiment(found.name, seeds, plays, rule, first_seed, progress)
    else:
        result = run_experiment(found.name, seeds, plays, rule, first_seed)
    click.echo(found.title)
    base = result.baseline
    if not found.learners:
        click.echo("Exact chances for the opening player when both choose uniformly among the legal moves:")
        for word, value in (("wins", base.wins), ("draws", base.draws), ("losses", base.losses)):
            click.echo(f"  {word:<7} {value!s:>9}  = {float(value) * 100:.2f}%")
        click.echo(f"Source: {CITATION}.")
        return
    from menace.render.experiments import rule_words

    who = "opening player" if result.side.name == "X" else "second player"
    click.echo(f"{rule_words(result)}; {seeds:,} seeds of {plays:,} plays; the {who}'s results per 100 plays.")
    head = " mean median (quartiles)"
    click.echo(f"{'plays':>13}  {'wins':<24} {'draws':<24} {'losses':<24}")
    click.echo(f"{'':>13}  {head:<24} {head:<24} {head:<24}")
    b0 = result.baseline_block
    click.echo(f"{'random avg':>13}  {_pct(b0[0]):<24} {_pct(b0[1]):<24} {_pct(b0[2]):<24}")
    for block in result.blocks():
        cells = [f"{block.mean[r]:5.1f} {block.median[r]:5.1f} ({block.low[r]:4.1f}-{block.high[r]:5.1f})"
                 for r in range(3)]
        click.echo(f"{f'{block.first:,}-{block.last:,}':>13}  {cells[0]:<24} {cells[1]:<24} {cells[2]:<24}")
    if result.emerged is not None:
        e = result.emerged
        click.echo(f"Line that emerged (up to symmetry) in {e.seeds} of {seeds} seeds, from block {e.from_block:g} "
                   f"(median): {' '.join(e.moves)}; {e.settled} seeds settled into one line.")
    elif len(found.learners) == 2:
        click.echo("No line of play was played in most plays of the last block.")
    click.echo(f"Paper: {found.statement}")
    click.echo(f"Source: {CITATION}.")
    if out is not None and not no_figure:
        from menace.render.experiments import render_experiment

        written = render_experiment(result, out)
        click.echo(f"Figure written to {written}")
