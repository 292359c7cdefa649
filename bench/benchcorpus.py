"""The corpus the benchmarks share: bench/out/corpus/paths.ndjson, made by the project's
../shared/bench/make_corpus.py (20,000 paths, 2 M points). That generator is only in the
project's workspace, not in a clone: without it, give the scripts --corpus DIR holding a
paths.ndjson of GeoJSON LineString features."""
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def corpus_paths(directory: Path) -> Path:
    """DIR/paths.ndjson, made with the shared generator when it is missing (or a clear exit)."""
    paths = directory / "paths.ndjson"
    if not paths.exists():
        maker = REPO.parent / "shared" / "bench" / "make_corpus.py"
        if not maker.exists():
            sys.exit(f"no corpus at {paths}, and no {maker} to make one: it is only in the project's "
                     "workspace; give --corpus DIR with a paths.ndjson of GeoJSON LineString features")
        directory.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, str(maker), str(directory)], check=True, stdout=subprocess.DEVNULL)
    return paths
