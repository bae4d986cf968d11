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
