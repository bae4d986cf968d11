import numpy as np
import pytest
from safetensors.numpy import save_file

from parasent.core.stored_weights import read_weights
from parasent.errors import WeightsFormatError
from parasent.support.mmap_weights import map_safetensors


def test_maps_every_tensor_without_copying(tmp_path):
    tensors = {
        "embedding.weight": np.random.default_rng(0).normal(size=(50, 7)).astype(np.float32),
        "half": np.arange(6, dtype=np.float16).reshape(2, 3),
        "ids": np.arange(5, dtype=np.int64),
        "empty": np.zeros((0, 3), dtype=np.float32),
    }
    save_file(tensors, str(tmp_path / "w.safetensors"), metadata={"note": "x"})
    mapped = map_safetensors(tmp_path / "w.safetensors")
    assert set(mapped) == set(tensors)
    for name, value in tensors.items():
        assert mapped[name].dtype == value.dtype and np.array_equal(mapped[name], value)
    assert isinstance(mapped["embedding.weight"].base, np.memmap)  # mapped, not copied
    assert type(mapped["embedding.weight"]) is np.ndarray
    with pytest.raises(ValueError):
        mapped["embedding.weight"][0, 0] = 1.0  # read-only


def test_garbage_is_refused_and_read_weights_reports_it(tmp_path):
    path = tmp_path / "bad.safetensors"
    path.write_bytes(b"\x05\x00\x00\x00\x00\x00\x00\x00{bad}")
    with pytest.raises(WeightsFormatError):
        map_safetensors(path)
    from parasent.errors import ModelFormatError

    with pytest.raises(ModelFormatError, match="unreadable"):
        read_weights(path)


def test_sorted_files_repeat_byte_for_byte_and_read_back_with_safetensors(tmp_path):
    import subprocess
    import sys

    from safetensors import safe_open

    script = (
        "import sys, numpy as np\n"
        "from parasent.support.mmap_weights import save_sorted\n"
        "tensors = {'b': np.arange(5, dtype=np.int8), 'a': np.ones((2, 3), np.float32), 'k': np.arange(3, dtype=np.uint64)}\n"
        "save_sorted(tensors, sys.argv[1], {'zeta': '1', 'alpha': '2', 'mid': '3', 'other': '4'})\n"
    )
    paths = [tmp_path / f"{k}.safetensors" for k in range(3)]
    for path in paths:  # separate processes: the safetensors library's metadata order changes between them
        subprocess.run([sys.executable, "-c", script, str(path)], check=True)
    assert paths[0].read_bytes() == paths[1].read_bytes() == paths[2].read_bytes()
    with safe_open(str(paths[0]), framework="np") as handle:
        assert handle.metadata() == {"zeta": "1", "alpha": "2", "mid": "3", "other": "4"}
        np.testing.assert_array_equal(handle.get_tensor("k"), np.arange(3, dtype=np.uint64))
        np.testing.assert_array_equal(handle.get_tensor("b"), np.arange(5, dtype=np.int8))
    mapped = map_safetensors(paths[0])
    np.testing.assert_array_equal(mapped["a"], np.ones((2, 3), np.float32))
    assert all(array.ctypes.data % array.dtype.itemsize == 0 for array in mapped.values())  # aligned
