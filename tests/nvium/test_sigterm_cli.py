"""`proceedings nvium train` killed with SIGTERM in a real process, then resumed (slow: two processes)."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

TEXT = "\n".join(f"PROSPERO {i}: We are such stuff as dreams are made on." for i in range(400))


def train_command(data, out, steps):
    return [sys.executable, "-m", "proceedings", "nvium", "train", "--preset", "tiny", "--data", str(data),
            "--out", str(out), "--steps", str(steps), "--device", "cpu"]


@pytest.mark.slow
def test_sigterm_then_rerun_gives_the_uninterrupted_loss_curve(tmp_path):
    (tmp_path / "play.txt").write_text(TEXT)
    env = {**os.environ, "PROCEEDINGS_CACHE": str(tmp_path / "cache")}
    subprocess.run(train_command(tmp_path / "play.txt", tmp_path / "full", 300), env=env, check=True, capture_output=True)

    process = subprocess.Popen(train_command(tmp_path / "play.txt", tmp_path / "cut", 300), env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    state = tmp_path / "cut" / "train_state.pt"
    deadline = time.time() + 120
    while process.poll() is None and time.time() < deadline:  # wait until training is under way
        if (tmp_path / "cut").exists() and not state.exists():
            time.sleep(1.0)
            break
        time.sleep(0.05)
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=120) == 143, process.stderr.read().decode()[-2000:]
    assert state.is_file()

    subprocess.run(train_command(tmp_path / "play.txt", tmp_path / "cut", 300), env=env, check=True, capture_output=True)
    losses = [[json.loads(line)["loss"] for line in (tmp_path / run / "log.jsonl").read_text().splitlines()]
              for run in ("full", "cut")]
    assert len(losses[0]) == 300 and losses[0] == losses[1]
