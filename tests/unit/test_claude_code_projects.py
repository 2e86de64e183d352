"""Which ~/.claude/projects folder is a project's: Claude Code's naming rule, checked against
real folder names, the rule's documented examples, and (when node is installed) the rule
itself run as JavaScript on random paths."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess

import pytest

from edgar.transcripts.claude_code.projects import (
    folder_name,
    folders_for,
    project_of,
    projects_dir,
)

# (cwd recorded in the transcript, folder it was found in): the corpus files whose paths
# were not anonymised (tests/data/claude-code/SOURCES.md).
REAL = [
    ("/Users/dain/workspace/JSSoundRecorder", "-Users-dain-workspace-JSSoundRecorder"),
    ("/src/deep-manifest", "-src-deep-manifest"),
]
# Examples given by projects that match Claude Code's folders (docs/claude-code-import.md).
DOCUMENTED = [
    ("/home/user/my_example_workspace", "-home-user-my-example-workspace"),
    ("/Users/foo/src/github.com/omnara-ai/omnara", "-Users-foo-src-github-com-omnara-ai-omnara"),
    ("/Users/me/.agents", "-Users-me--agents"),               # no collapsing of runs
    ("C:\\Users\\me\\app", "C--Users-me-app"),
    ("/a/é😀_x", "-a-----x"),                                  # an astral character: 2 units
]


@pytest.mark.parametrize("path, name", REAL + DOCUMENTED)
def test_folder_names_match_claude_codes(path, name):
    assert folder_name(path) == name


def test_a_long_path_is_cut_at_200_and_gets_a_hash_of_the_whole_path():
    path = "/very/" + "d" * 250 + "/é😀"
    name = folder_name(path)
    assert name == "-very-" + "d" * 194 + "-osof4p"             # computed by the JS rule
    assert folder_name(path + "x") != name and folder_name(path + "x")[:200] == name[:200]
    assert folder_name("/" + "a" * 199) == "-" + "a" * 199      # 200 exactly: not cut


JS = """
const paths = JSON.parse(require('fs').readFileSync(0, 'utf8'));
function name(A) {
  let q = A.replace(/[^a-zA-Z0-9]/g, "-");
  if (q.length <= 200) return q;
  let K = 0;
  for (let i = 0; i < A.length; i++) { K = (K << 5) - K + A.charCodeAt(i); K |= 0; }
  return `${q.slice(0, 200)}-${Math.abs(K).toString(36)}`;
}
process.stdout.write(JSON.stringify(paths.map(name)));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_rule_agrees_with_its_javascript_on_random_paths():
    rng = random.Random()
    alphabet = "abcXYZ019/._- ~:\\éß∂あ😀\u0301"
    paths = ["/" + "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 320)))
             for _ in range(300)]
    out = subprocess.run(["node", "-e", JS], input=json.dumps(paths), capture_output=True,
                         text=True, check=True, timeout=60)
    expected = json.loads(out.stdout)
    assert [folder_name(p) for p in paths] == expected


def test_projects_dir_follows_claude_config_dir(tmp_path):
    assert projects_dir({"CLAUDE_CONFIG_DIR": str(tmp_path)}) == tmp_path / "projects"
    assert projects_dir({"HOME": "/x"}).name == "projects"


def test_a_symlinked_project_is_looked_up_under_both_paths(tmp_path):
    real = tmp_path / "real" / "app"
    (real / "sub").mkdir(parents=True)
    link = tmp_path / "link"
    os.symlink(tmp_path / "real", link)
    names = folders_for(real, real / "sub", str(link / "app" / "sub"))
    assert names == [folder_name(str(real)), folder_name(str(link / "app"))]
    # a stale PWD (somewhere else) is ignored; a root given through the link resolves
    assert folders_for(real, real, str(tmp_path)) == [folder_name(str(real))]
    assert folders_for(link / "app", real)[0] == folder_name(str(real))


def test_project_of_names_the_folder_a_transcript_sits_in():
    assert project_of("/h/.claude/projects/-a-b/s1.jsonl") == "-a-b"
    assert project_of("/h/.claude/projects/-a-b/agent-12ab.jsonl") == "-a-b"
    assert project_of("/h/.claude/projects/-a-b/s1/subagents/agent-x.jsonl") == "-a-b"
    assert project_of("/h/.claude/projects/-a-b/s1/subagents/workflows/r/agent-x.jsonl") == "-a-b"
