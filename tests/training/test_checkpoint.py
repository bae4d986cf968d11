import torch

from parasent.training.checkpoint import load_checkpoint, save_checkpoint


def test_temporary_files_of_killed_writers_are_removed_by_the_next_write(tmp_path):
    """A checkpoint write killed before its rename leaves ``.checkpoint.safetensors.tmp-PID``;
    the previous checkpoint is whole, and the next successful write removes the leftover."""
    path = tmp_path / "checkpoint.safetensors"
    save_checkpoint(path, {"step": 1, "w": torch.ones(3)})
    leftover = tmp_path / ".checkpoint.safetensors.tmp-999999999"
    leftover.write_bytes(b"half a checkpoint")
    assert load_checkpoint(path)["step"] == 1
    save_checkpoint(path, {"step": 2, "w": torch.zeros(3)})
    assert load_checkpoint(path)["step"] == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["checkpoint.safetensors"]
