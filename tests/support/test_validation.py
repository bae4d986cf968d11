"""Option checks (parasent/support/validation.py)."""

from __future__ import annotations

import pytest

from parasent.support.validation import is_cpu_device


@pytest.mark.parametrize("device", [None, "cpu", "cpu:0"])
def test_the_cpu_is_told_by_its_name(device):
    assert is_cpu_device(device)


@pytest.mark.parametrize("device", ["cuda", "cuda:0", "mps", "bogus", "cpux"])
def test_other_devices_are_not_the_cpu(device):
    assert not is_cpu_device(device)


def test_a_torch_device_is_told_without_importing_torch_for_it():
    torch = pytest.importorskip("torch")
    assert is_cpu_device(torch.device("cpu")) and not is_cpu_device(torch.device("meta"))


def test_a_run_device_is_resolved_once_and_checked():
    import torch

    from parasent.errors import OptionError
    from parasent.support.validation import resolve_device

    assert resolve_device("auto") == ("cuda" if torch.cuda.is_available() else "cpu")
    assert resolve_device("cpu") == "cpu"
    with pytest.raises(OptionError, match="not a device"):
        resolve_device("bogus")
