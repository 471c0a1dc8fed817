"""The GitHub Action (action.yml and its scripts in action/): what can be checked without GitHub.

The YAML is parsed with PyYAML when it is installed, else checked line by line; the two
scripts run here with fake ``flamespace`` and ``gh`` commands on PATH that log their arguments.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ACTION = ROOT / "action.yml"
INPUTS = {"command", "base", "runs", "args", "python-version", "comment", "out-dir"}


def test_action_yml_is_a_composite_action_whose_steps_use_only_what_exists():
    text = ACTION.read_text()
    assert "\t" not in text
    used_inputs = set(re.findall(r"inputs\.([a-z-]+)", text))
    used_outputs = set(re.findall(r"steps\.gate\.outputs\.([a-z-]+)", text))
    script_outputs = set(re.findall(r'echo "([a-z-]+)=', (ROOT / "action" / "gate.sh").read_text()))
    assert used_inputs == INPUTS and used_outputs == script_outputs == {"exit-code", "report"}
    for script in re.findall(r'"\$GITHUB_ACTION_PATH/(action/[a-z]+\.sh)"', text):
        assert (ROOT / script).is_file()
    try:
        import yaml
    except ImportError:  # the same facts, from the text
        assert re.search(r"^runs:\n  using: composite\n  steps:\n", text, re.M)
        assert re.search(r"^inputs:\n  command:\n(    .*\n)*?    required: true\n", text, re.M)
        blocks = re.split(r"\n    - ", text.split("\n  steps:\n", 1)[1])
        assert len(blocks) == 6
        for block in blocks:
            assert ("uses: " in block) != ("run: " in block) and ("run: " not in block or "shell: bash" in block)
        return
    action = yaml.safe_load(text)
    assert set(action["inputs"]) == INPUTS and action["inputs"]["command"]["required"] is True
    assert action["runs"]["using"] == "composite"
    for step in action["runs"]["steps"]:
        assert ("uses" in step) != ("run" in step) and ("run" not in step or step["shell"] == "bash")


def fake(bin_dir: Path, name: str, body: str) -> None:
    path = bin_dir / name
    path.write_text("#!/usr/bin/env bash\n" + body)
    path.chmod(0o755)


@pytest.fixture
def sandbox(tmp_path):
    """A git repository with one commit, a bin/ directory first on PATH, GitHub's output files."""
    repo = tmp_path / "repo"
    repo.mkdir()
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t.invalid",
    }
    for args in (["init", "-q"], ["commit", "-q", "--allow-empty", "-m", "one"]):
        subprocess.run(["git", *args], cwd=repo, check=True, env=env)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    env.update(
        PATH=f"{bin_dir}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{env['PATH']}",
        GITHUB_OUTPUT=str(tmp_path / "output"),
        GITHUB_STEP_SUMMARY=str(tmp_path / "summary"),
        LOG=str(tmp_path / "log"),
    )
    return repo, bin_dir, env


def run_script(name: str, repo: Path, env: dict, **inputs: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", str(ROOT / "action" / name)], cwd=repo, env={**env, **inputs}, capture_output=True, text=True, timeout=60
    )


#: A flamespace that logs its arguments one per line, writes a report and exits with $FAKE_EXIT.
FAKE_FLAMESPACE = 'printf "%s\\n" "$@" > "$LOG"\nmkdir -p out && echo "## report" > out/report.md\nexit "$FAKE_EXIT"\n'


@pytest.mark.parametrize("exit_code", [0, 3])
def test_gate_script_passes_the_words_on_and_hands_the_exit_code_to_the_next_steps(sandbox, tmp_path, exit_code):
    repo, bin_dir, env = sandbox
    fake(bin_dir, "flamespace", FAKE_FLAMESPACE)
    done = run_script(
        "gate.sh",
        repo,
        {**env, "FAKE_EXIT": str(exit_code)},
        GATE_BASE="HEAD",
        GATE_RUNS="7",
        GATE_COMMAND='bench/workload.py --name "a b" $HOME',
        GATE_ARGS="--min-rel 5% --no-install",
        GATE_OUT_DIR="out",
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "log").read_text().splitlines() == [
        "gate",
        "--base",
        "HEAD",
        "-n",
        "7",
        "-o",
        "out",
        "--min-rel",
        "5%",
        "--no-install",
        "--",
        "bench/workload.py",
        "--name",
        "a b",
        "$HOME",
    ]
    assert (tmp_path / "output").read_text() == f"exit-code={exit_code}\nreport=out/report.md\n"
    assert (tmp_path / "summary").read_text() == "## report\n"


@pytest.mark.parametrize(
    "inputs, message",
    [
        ({"GATE_BASE": "", "GATE_COMMAND": "bench/workload.py"}, "no base ref"),
        ({"GATE_BASE": "HEAD", "GATE_COMMAND": "bench/workload.py 'unclosed"}, "cannot split the command"),
        ({"GATE_BASE": "0" * 40, "GATE_COMMAND": "bench/workload.py"}, "cannot fetch the base"),  # no origin here
    ],
)
def test_gate_script_setup_errors_give_exit_code_1(sandbox, tmp_path, inputs, message):
    repo, bin_dir, env = sandbox
    fake(bin_dir, "flamespace", FAKE_FLAMESPACE)
    done = run_script("gate.sh", repo, {**env, "FAKE_EXIT": "0"}, **inputs)
    assert done.returncode == 0 and message in done.stdout and "::error" in done.stdout
    assert (tmp_path / "output").read_text() == "exit-code=1\n" and not (tmp_path / "log").exists()


#: A gh that logs each call (and the body file it was given), and lists $FAKE_PREVIOUS as the earlier comment.
FAKE_GH = """echo "$*" >> "$LOG"
for arg in "$@"; do case $arg in body=@*) cat "${arg#body=@}" >> "$LOG";; esac; done
if [ "$1" = pr ]; then cat "$7" >> "$LOG"; fi
if [ "$1" = api ] && [ "$2" != --silent ]; then echo "${FAKE_PREVIOUS:-}"; fi
exit "${FAKE_EXIT:-0}"
"""


@pytest.mark.parametrize("previous", ["", "42"])
def test_comment_script_edits_its_earlier_comment_or_posts_one(sandbox, tmp_path, previous):
    repo, bin_dir, env = sandbox
    fake(bin_dir, "gh", FAKE_GH)
    (tmp_path / "report.md").write_text("## flamespace gate\n")
    done = run_script(
        "comment.sh",
        repo,
        {**env, "FAKE_PREVIOUS": previous, "GITHUB_REPOSITORY": "o/r"},
        GATE_PR="7",
        GATE_REPORT=str(tmp_path / "report.md"),
    )
    assert done.returncode == 0, done.stderr
    log = (tmp_path / "log").read_text().splitlines()
    assert log[0].startswith("api repos/o/r/issues/7/comments --paginate --jq")
    if previous:
        assert log[1].startswith("api --silent -X PATCH repos/o/r/issues/comments/42 -F body=@")
    else:
        assert log[1].startswith("pr comment 7 --repo o/r --body-file ")
    assert log[2:] == ["<!-- flamespace gate -->", "## flamespace gate"]


def test_comment_script_only_warns_when_it_may_not_comment(sandbox, tmp_path):
    repo, bin_dir, env = sandbox
    fake(bin_dir, "gh", FAKE_GH)
    (tmp_path / "report.md").write_text("## flamespace gate\n")
    done = run_script(
        "comment.sh",
        repo,
        {**env, "FAKE_EXIT": "1", "GITHUB_REPOSITORY": "o/r"},
        GATE_PR="7",
        GATE_REPORT=str(tmp_path / "report.md"),
    )
    assert done.returncode == 0 and "::warning" in done.stdout and "pull-requests: write" in done.stdout
