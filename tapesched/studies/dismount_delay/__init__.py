"""``ecmwf-defer-dismount``: the ECMWF sample's mounts and mount latency against the
dismount delay.

- :mod:`tapesched.studies.dismount_delay.study`: the sample replayed per eviction rule and
  delay;
- :mod:`tapesched.studies.dismount_delay.report`: the experiment and its files.
"""
