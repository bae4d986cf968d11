"""scripts/train_walk.py: the walk of docs/architecture.md measured by a profiler."""

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def load_script():
    spec = importlib.util.spec_from_file_location("train_walk", ROOT / "scripts" / "train_walk.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["train_walk"] = module
    spec.loader.exec_module(module)
    return module


def test_a_climb_back_is_a_room_entered_again_after_another():
    walk = load_script()
    package = walk.PACKAGE
    files = [package / name for name in ("training/run.py", "data/readers/sts.py", "support/lines.py")]
    files += [package / name for name in ("data/registry/layouts.py", "training/trainer.py", "text/vocab.py")]
    assert walk.climbs(files) == [4]  # training again; support/ is the floor under data/
    assert walk.climbs(files, floor=False) == [3, 4]  # data again after support/, then training
    assert walk.climbs(files, walk.folder) == [4]  # data/registry/ is another folder than data/readers/
    assert walk.part(package / "cli.py") == "cli" and walk.part(package / "core/model_formats/x.py") == "core"


def test_a_step_up_is_a_file_above_the_layer_of_the_one_before():
    walk = load_script()
    package = walk.PACKAGE
    names = ["cli.py", "training/run.py", "support/lines.py", "data/readers/sts.py", "text/vocab.py"]
    files = [package / name for name in names]
    assert [walk.layer(path) for path in files] == [9, 7, 0, 5, 2]
    assert walk.steps_up(files) == [3]  # support/ (layer 0) up to data/ (layer 5)
    assert walk.counts(files)["steps up the layer order (support/ as layer 0)"] == 1


def test_the_walk_reaches_the_optimizer_step(text_data_dir):
    walk = load_script()
    options = ["--vectors", "none", "--dim", "16"]  # the mini data directory has no GloVe vectors
    followed = walk.follow(str(text_data_dir), options=options)
    assert followed.stepped
    rooms = [walk.part(path) for path in followed.files]
    assert rooms[:2] == ["cli", "commands"] and "objectives" in rooms
    assert followed.files[-1].name == "word_averaging.py"  # the encoder's forward, then the step
    assert all(walk.PACKAGE in path.parents for path in followed.files)
    assert followed.to_step == len(followed.files)
    listing = walk.report(followed)
    assert all(str(path.relative_to(walk.PACKAGE.parent)) in listing for path in followed.files)
    assert "to the first optimizer step" in listing and "steps up the layer order" in listing
