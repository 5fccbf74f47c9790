"""Names judged for the node they name (issue 49): the bare generic names and the wrong names quoted in the
issue are flagged given such a node's papers, built here from real ICML papers selected by title words;
a name those papers do carry is not."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from icml_topics.evaluate.name_papers import MIN_CARRIED, carried_share, generic_name, paper_defects
from icml_topics.evaluate.names import name_defects

#: node -> (theme it sits under, a regex its papers' titles match); the siblings of a node are the other
#: nodes of the same theme
NODES = {
    "deep RL": ("Reinforcement learning", r"policy gradient|actor.critic|deep reinforcement|deep rl\b"),
    "offline RL": ("Reinforcement learning", r"offline (rl|reinforcement)|batch reinforcement"),
    "multi-agent RL": ("Reinforcement learning", r"multi.agent (rl|reinforcement)|\bmarl\b"),
    "RL exploration": ("Reinforcement learning", r"exploration"),
    "GNNs": ("Graph learning", r"graph neural|\bgnns?\b|message.passing"),
    "graph matching": ("Graph learning", r"graph matching|graph alignment|graph edit"),
    "spectral graph": ("Graph learning", r"spectral|laplacian"),
    "meta-learning and self-play": ("Transfer", r"meta.learning|self.play"),
    "continual learning": ("Transfer", r"continual|catastrophic forgetting|lifelong"),
    "domain adaptation": ("Transfer", r"domain adaptation|domain generalization"),
    "privacy and backdoors": ("Safety", r"backdoor|differential(ly)? priva|membership inference"),
    "adversarial attacks": ("Safety", r"adversarial (attack|example|perturbation)|robustness certific"),
    "fairness": ("Safety", r"\bfair"),
    "time-series forecasting": ("Time series", r"forecast"),
    "time-series anomalies": ("Time series", r"anomal"),
    "LLM agents": ("Large language models", r"(llm|language model).*agent|agent.*(llm|language model)"),
    "LLM evaluation": ("Large language models", r"benchmark|evaluating|evaluation of"),
    "LLM alignment": ("Large language models", r"human feedback|rlhf|preference optimization|alignment"),
    "robot learning": ("Robotics", r"robot|manipulation|locomotion|embodied|navigation"),
    "visual recognition": (
        "Robotics",
        r"image classification|object detection|visual recognition|convolutional|segmentation",
    ),
    "molecule design": ("AI for science", r"molecul|protein"),
    "PDE solvers": ("AI for science", r"\bpdes?\b|partial differential"),
}
#: names quoted in issue 49, each on the node it was given to (or a node like it)
QUOTED = [
    ("optimization", "deep RL"),
    ("policy", "deep RL"),
    ("RL", "offline RL"),
    ("kernels", "GNNs"),
    ("eeg", "spectral graph"),
    ("toxicity", "meta-learning and self-play"),
    ("representation learning", "privacy and backdoors"),
    ("masked autoencoder", "adversarial attacks"),
    ("loss", "time-series forecasting"),
    ("workflow", "LLM agents"),
    ("agents", "LLM agents"),
    ("agent", "LLM agents"),
    ("multiple choice question", "LLM evaluation"),
    ("language models", "robot learning"),
    ("vision", "visual recognition"),
    ("design", "molecule design"),
]
#: names those papers do carry, more than their siblings' papers: never flagged by the paper checks
CARRIED = [
    ("offline reinforcement learning", "offline RL"),
    ("message passing", "GNNs"),
    ("differential privacy", "privacy and backdoors"),
    ("time-series forecasting", "time-series forecasting"),
    ("continual learning", "continual learning"),
    ("domain adaptation", "domain adaptation"),
]


@pytest.fixture(scope="module")
def nodes(icml_frame) -> dict[str, tuple[str, list[str]]]:
    """node -> (its theme, its papers' texts: title and abstract); each paper in one node at most."""
    titles = icml_frame["title"].fillna("")
    texts = (titles + ". " + icml_frame["abstract"].fillna("")).tolist()
    taken: set[int] = set()
    out = {}
    for node, (theme, pattern) in NODES.items():
        rows = [i for i, t in enumerate(titles) if re.search(pattern, t, re.IGNORECASE) and i not in taken]
        taken.update(rows)
        out[node] = (theme, [texts[i] for i in rows])
    print(pd.Series({n: len(p) for n, (_, p) in out.items()}, name="papers").to_string())  # the nodes built
    return out


def _defects(name: str, node: str, nodes) -> list[str]:
    theme, papers = nodes[node]
    siblings = [p for n, (t, p) in nodes.items() if t == theme and n != node]
    return name_defects(name, papers=papers, sibling_papers=siblings)


@pytest.mark.parametrize(("name", "node"), QUOTED)
def test_quoted_names_are_flagged_for_their_nodes(name, node, nodes):
    assert len(nodes[node][1]) >= 10, f"too few ICML papers for {node!r}"
    found = set(_defects(name, node, nodes))
    assert found & {"generic name", "rare in its papers", "carried by a sibling"}, (name, node, found)


@pytest.mark.parametrize(("name", "node"), CARRIED)
def test_names_the_papers_carry_are_not_flagged(name, node, nodes):
    assert _defects(name, node, nodes) == []
    assert carried_share(name, nodes[node][1]) >= MIN_CARRIED


def test_a_name_its_sibling_carries_as_much_is_flagged(nodes):
    """ "reinforcement learning" is carried by every RL node alike: under no parent it is flagged for each."""
    theme, papers = nodes["multi-agent RL"]
    siblings = [nodes["deep RL"][1], nodes["offline RL"][1]]
    assert "carried by a sibling" in paper_defects("deep reinforcement learning", nodes["offline RL"][1], siblings)
    assert "carried by a sibling" not in paper_defects("multi-agent reinforcement learning", papers, siblings)


@pytest.mark.parametrize("name", ["loss", "policy", "optimization", "design", "vision", "agents", "language models"])
def test_bare_generic_names_need_no_papers(name):
    assert generic_name(name)
    assert "generic name" in name_defects(name)


@pytest.mark.parametrize(
    "name", ["KV cache compression", "vision-language-action models", "RL with verifiable rewards (RLVR)", "jailbreak"]
)
def test_subjects_are_not_generic(name):
    assert not generic_name(name)
