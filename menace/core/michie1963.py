"""What Michie's 1963 paper itself says about the Pegasus program's runs, as data with its source.

Source: Donald Michie, "Experiments on the mechanization of game-learning. Part 1. Characterization
of the model and its parameters", *The Computer Journal* 6(3), 1963, pp. 232-236.

Only values printed in the paper's text and tables are kept here. The block-by-block bars of
Figs. 7 to 9 are drawn, not printed as numbers, and are not transcribed: the experiments show the
paper's statements about them beside the runs instead (see :data:`STATEMENTS`).
"""

from __future__ import annotations

from fractions import Fraction

CITATION = ('D. Michie, "Experiments on the mechanization of game-learning. Part 1. Characterization of '
            'the model and its parameters", The Computer Journal 6(3), 1963, pp. 232-236')
SHORT_CITATION = "Michie, The Computer Journal 6(3), 1963, pp. 232-236"

FIG6_MULTIPLIERS: dict[int, str] = {8: "1.025", 7: "1.051", 6: "1.104", 5: "1.218", 4: "1.484", 3: "2.204",
                                    2: "4.856", 1: "infinity"}
"""Fig. 6: the multipliers M_n of the trial runs (A = 1.025, B = 2), as printed (three decimals)."""

TRIAL_A = Fraction(41, 40)
TRIAL_B = Fraction(2)

PAPER_EXAMPLE = ((Fraction(2, 5), Fraction(3, 5)), 2, (Fraction(4, 7), Fraction(3, 7)))
"""The paper's worked example: chances 2/5 and 3/5, the first multiplied by M = 2 after a win."""

STATEMENTS: dict[str, str] = {
    "fig7": "Fig. 7: the opening player learns, the other plays at random; two runs, of 1,000 and 800 plays. "
            "Neither of the duplicate runs converged to an infallible standard of play.",
    "fig8": "Fig. 8: the second player learns, the opening player plays at random.",
    "fig9": "Fig. 9: both sides learn; the share of draws rises until one stereotyped line of play emerges.",
}
"""What the paper says of each run, in our words."""
