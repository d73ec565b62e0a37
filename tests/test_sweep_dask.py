"""Sweeps on a Dask cluster: a real ``distributed.LocalCluster`` of two worker processes on
127.0.0.1, started once for the module. The same sweep gives the same files here and there; a
worker killed mid-sweep loses and duplicates nothing."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from conftest import owner
from distributed import Client, LocalCluster

from menace.app import pools
from menace.app.machines import machine_summary, settings_for
from menace.app.pools import ClusterError, DaskPool
from menace.app.sweep import SweepSetting, expand_settings, run_one, run_sweep
from menace.cli import cli
from menace.core.errors import InvalidInputError
from menace.core.settings import MICHIE, EmptyPolicy
from menace.games import find_game

TWO_SETTINGS = expand_settings(MICHIE, beads=[(4, 3, 2, 1), (8, 4, 2, 1)], empty_box=[EmptyPolicy.RESIGN])


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1, host="127.0.0.1",
                      dashboard_address="127.0.0.1:0") as c:  # None still binds port 8787; 0: any free one
        yield c


@pytest.fixture
def client(cluster: LocalCluster) -> Iterator[Client]:
    """A client of the test's own, to watch and kill workers; two workers ready before each test."""
    with Client(cluster.scheduler_address, set_as_default=False) as c:
        c.wait_for_workers(2, timeout=300)  # a hang guard: a busy machine may take long to restart one
        yield c


def sweep(*args: str, env: dict[str, str] | None = None) -> Result:
    result = CliRunner().invoke(cli, ["sweep", *args], env=env, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result


def test_the_same_sweep_writes_the_same_table_csv_and_json_on_the_cluster(
    cluster: LocalCluster, tmp_path: Path
) -> None:
    # The table (stdout), the CSV and the JSON hold no time and no worker count: byte for byte the same.
    outputs = []
    for name, where in (("one", ["--workers", "1"]), ("two", ["--workers", "2"]),
                        ("dask", ["--cluster", cluster.scheduler_address])):
        csv_path, json_path = tmp_path / f"{name}.csv", tmp_path / f"{name}.json"
        result = sweep("--seeds", "12", "--games", "400", "--eval-games", "100", "--beads", "4,3,2,1",
                       "--beads", "8,4,2,1", "--empty-box", "resign", "--csv", str(csv_path),
                       "--json", str(json_path), *where)
        table = result.stdout.replace(str(tmp_path / name), "FILE")
        outputs.append((table, csv_path.read_bytes(), json_path.read_bytes()))
        if name == "dask":
            assert f"on the Dask cluster at {cluster.scheduler_address} (2 worker threads)" in result.stderr
    assert outputs[0] == outputs[1] == outputs[2]
    assert outputs[0][1].count(b"\n") == 25


def test_the_environment_variable_names_the_cluster(cluster: LocalCluster) -> None:
    result = sweep("--seeds", "3", "--games", "50", "--eval-games", "0", env={"MENACE_DASK": cluster.scheduler_address})
    assert f"on the Dask cluster at {cluster.scheduler_address}" in result.stderr
    local = sweep("--seeds", "3", "--games", "50", "--eval-games", "0", env={"MENACE_DASK": ""})
    assert "on the Dask cluster" not in local.stderr and local.stdout == result.stdout


def test_any_game_and_a_learning_opponent_give_the_same_runs(cluster: LocalCluster) -> None:
    setting = [SweepSetting("michie", MICHIE)]
    for opponent, game in (("random", "hexapawn"), ("td:200", "tictactoe"), ("perfect", "nim-15-4-normal")):
        here = run_sweep(setting, opponent, 80, 6, workers=1, eval_games=20, game=game)
        there = run_sweep(setting, opponent, 80, 6, eval_games=20, game=game, cluster=cluster.scheduler_address)
        assert here.runs == there.runs
        assert there.cluster == cluster.scheduler_address and there.workers == 2


def test_a_pegasus_setting_gives_the_same_runs_as_each_seed_alone(cluster: LocalCluster) -> None:
    # the refined rule: its mean outcome, like the odds, starts afresh for every seed on every worker
    pegasus = SweepSetting("pegasus", settings_for("hexapawn", rule="pegasus", refinement="per-play")[1])
    there = run_sweep([pegasus], "random", 60, 6, eval_games=20, game="hexapawn", cluster=cluster.scheduler_address)
    alone = [run_one(pegasus, "random", 60, seed, eval_games=20, game=find_game("hexapawn")) for seed in range(1, 7)]
    assert there.runs == alone


def test_a_worker_killed_mid_sweep_loses_and_duplicates_nothing(client: Client) -> None:
    pids: dict[str, int] = client.run(os.getpid)
    killed: list[tuple[str, int, int]] = []
    progress: list[int] = []

    def kill_a_busy_worker(done: int, total: int) -> None:
        progress.append(done)
        if killed:
            return
        # A batch has finished, so batches are running: kill a worker the scheduler has work on.
        busy = {address: keys for address, keys in client.processing().items() if keys}
        if busy:
            address, keys = next(iter(busy.items()))
            os.kill(pids[address], signal.SIGKILL)
            killed.append((address, pids[address], len(keys)))

    seeds, games = 16, 1500
    result = run_sweep(TWO_SETTINGS, "perfect", games, seeds, eval_games=200, progress=kill_a_busy_worker,
                       cluster=client.scheduler.address)
    assert killed, "no worker was busy when the first batch finished"
    address, pid, busy_keys = killed[0]
    assert busy_keys >= 1
    assert pid not in client.run(os.getpid).values()  # the nanny started a new process in its place
    # Every run once, in order, as the local pool gives it; progress counted each batch once.
    assert [(r.label, r.seed) for r in result.runs] == [(s.label, n) for s in TWO_SETTINGS for n in range(1, 17)]
    local = run_sweep(TWO_SETTINGS, "perfect", games, seeds, workers=2, eval_games=200)
    assert result.runs == local.runs
    assert progress == sorted(progress) and progress[-1] == 2 * seeds and len(set(progress)) == len(progress)


def _blocks_on_first_attempt(marker: str, value: int) -> tuple[int, int]:
    """The first attempt writes its pid to ``marker`` (the signal that it runs) and then waits to
    be killed; a retry finds the marker and answers."""
    path = Path(marker)
    try:
        with open(path, "x") as f:
            f.write(str(os.getpid()))
    except FileExistsError:
        return value * value, os.getpid()
    time.sleep(60)
    raise AssertionError("not killed")


def test_a_pool_retries_a_batch_whose_worker_died_while_running_it(client: Client, tmp_path: Path) -> None:
    marker = tmp_path / "started"
    with DaskPool(client.scheduler.address) as pool:
        future = pool.submit(_blocks_on_first_attempt, str(marker), 7)
        deadline = time.monotonic() + 300  # a hang guard
        while not (marker.exists() and marker.read_text()):  # the readiness signal: written by the task
            assert time.monotonic() < deadline, "the task never started"
            time.sleep(0.02)
        first = int(marker.read_text())
        os.kill(first, signal.SIGKILL)
        value, second = future.result(timeout=300)  # a hang guard, as above
    assert value == 49 and second != first


def test_stored_machines_are_written_here_from_what_the_workers_sent(cluster: LocalCluster, tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    result = sweep("--seeds", "3", "--games", "40", "--eval-games", "0", "--vs", "smart", "--store", "sw",
                   "--db", str(db), "--cluster", cluster.scheduler_address)
    assert "stored 3 machines, sw-1-1 to sw-1-3" in result.stdout
    for seed in (1, 2, 3):
        run = run_one(SweepSetting("michie", MICHIE), "smart", 40, seed, eval_games=0, keep=True)
        assert run.trained is not None
        summary = machine_summary(owner(f"sqlite:///{db}"), f"sw-1-{seed}")
        assert (summary.games, summary.wins, summary.draws, summary.losses) == (40, run.wins, run.draws, run.losses)
        assert summary.beads == sum(map(sum, run.trained.counts))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def test_an_unreachable_scheduler_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pools, "CONNECT_SECONDS", 0.5)
    address = f"tcp://127.0.0.1:{free_port()}"
    result = CliRunner().invoke(cli, ["sweep", "--seeds", "1", "--games", "5", "--cluster", address])
    assert result.exit_code == 1
    assert result.stderr.splitlines()[-1].startswith(f"Error: cannot reach the Dask scheduler at {address} (")
    assert "Traceback" not in result.output


def test_a_malformed_address_and_workers_with_a_cluster_are_refused() -> None:
    with pytest.raises(InvalidInputError, match="'nonsense' is not a scheduler address"):
        DaskPool("nonsense")
    result = CliRunner().invoke(cli, ["sweep", "--workers", "2", "--cluster", "tcp://127.0.0.1:8786"])
    assert result.exit_code == 2
    assert "--workers counts processes here; with --cluster (or $MENACE_DASK)" in result.output


def test_without_the_extra_a_cluster_sweep_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed now raises ImportError
    with pytest.raises(ClusterError):
        run_sweep(TWO_SETTINGS, "perfect", 10, 1, cluster="tcp://127.0.0.1:8786")
    result = CliRunner().invoke(cli, ["sweep", "--seeds", "1", "--cluster", "tcp://127.0.0.1:8786"])
    assert result.exit_code == 1
    assert result.stderr.splitlines()[-1] == ("Error: sweeping on a Dask cluster needs Dask, which is not installed; "
                                              "pip install 'menace[dask]'")


def test_a_local_sweep_does_not_import_dask() -> None:
    code = (
        "import sys; from click.testing import CliRunner; from menace.cli import cli\n"
        "r = CliRunner().invoke(cli, ['sweep', '--seeds', '4', '--games', '20', '--eval-games', '0'])\n"
        "assert r.exit_code == 0, r.output\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env={**os.environ, "MENACE_DASK": ""})
    assert done.stdout.strip() == "[]"


def test_the_clusters_own_failures_become_one_line_errors() -> None:
    from distributed import KilledWorker

    from menace.app.pools import _explained

    killed = _explained(KilledWorker("batch-1", None, 3))  # type: ignore[arg-type]
    assert isinstance(killed, ClusterError) and "keep dying" in str(killed)
    missing = _explained(ModuleNotFoundError("No module named 'menace'", name="menace"))
    assert isinstance(missing, ClusterError) and missing.hint == "install it where every worker runs: " + pools.EXTRA
    other = ValueError("from the run itself")
    assert _explained(other) is other
