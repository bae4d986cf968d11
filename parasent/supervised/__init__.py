"""Supervised heads on sentence encoders (Tai et al. 2015, as used by Wieting et al. 2016,
Sec. 4.4, and Jiao et al. 2018, Sec. 4.2): SICK relatedness and entailment, SST sentiment,
trained from scratch, from a universal paraphrastic model, or on frozen features."""

from parasent.supervised.tasks import TASKS, SupervisedTask, task_by_name

__all__ = ["TASKS", "SupervisedTask", "task_by_name"]
