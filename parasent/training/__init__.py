"""The stages of a training run and the one training loop."""
