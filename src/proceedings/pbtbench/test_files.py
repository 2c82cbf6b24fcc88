"""Test files rendered from a problem's hidden reference properties (spec 2.3).

Reference properties are plain annotated functions plus a separate strategy table, so the harness
can recompose them: with the reference strategies (the ceiling agent) or with every parameter
inferred from its annotation, `@given(x=...)` = `st.from_type` (the default-strategy agent, the
mechanical meaning of "default-strategy random inputs"). Both keep the properties' own `assume`
preconditions. The rendered file is self-contained: one file, as an agent would submit it.
"""

from __future__ import annotations

from proceedings.pbtbench.problem import Bug, Problem

MAX_EXAMPLES = 200  # the paper's setting


def reference_test_file(problem: Problem, bugs: tuple[Bug, ...]) -> str:
    """The hidden reference properties with their documented-invariant strategies."""
    tests = [f"@settings(max_examples={MAX_EXAMPLES})\n"
             f"@given(**STRATEGIES[{bug.property!r}])\n"
             f"def test_{bug.property.removeprefix('prop_')}({_params(problem, bug)}):\n"
             f"    {bug.property}({_params(problem, bug)})\n" for bug in bugs]
    return _assemble(problem, [problem.strategies_file.read_text()], tests)


def default_strategy_test_file(problem: Problem, bugs: tuple[Bug, ...]) -> str:
    """The same properties with every argument drawn from `st.from_type(annotation)`."""
    tests = []
    for bug in bugs:
        params = problem.property_params[bug.property]
        inferred = ", ".join(f"{name}=..." for name, _ in params)
        annotated = ", ".join(f"{name}: {annotation}" for name, annotation in params)
        tests.append(f"@settings(max_examples={MAX_EXAMPLES})\n"
                     f"@given({inferred})\n"
                     f"def test_{bug.property.removeprefix('prop_')}({annotated}):\n"
                     f"    {bug.property}({_params(problem, bug)})\n")
    return _assemble(problem, [], tests)


def _params(problem: Problem, bug: Bug) -> str:
    return ", ".join(name for name, _ in problem.property_params[bug.property])


def _assemble(problem: Problem, extra_sections: list[str], tests: list[str]) -> str:
    header = (f'"""Property-based tests for {problem.library} {problem.version} ({problem.id})."""\n'
              "from hypothesis import given, settings\n")
    sections = [header, problem.props_file.read_text(), *extra_sections, "\n\n".join(tests)]
    return "\n\n".join(s.strip("\n") + "\n" for s in sections)
