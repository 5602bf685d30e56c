"""Where the shared public test vectors live, and readers for their formats."""

from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VECTORS = ROOT.parent / "shared" / "hive-vectors"

if not VECTORS.is_dir():  # a missing data set must fail the run, never skip it
    raise RuntimeError(
        f"test vectors not found at {VECTORS}: the checkout needs ../shared beside it"
    )


def tsv_rows(name: str) -> Iterator[list[str]]:
    """The tab-separated fields of each data line of a vector file (comments, blanks skipped)."""
    for line in (VECTORS / name).read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            yield line.split("\t")
