"""``site-sweep`` (``tapesched sweep``): what-if sweeps of a site's own replay.

- :mod:`tapesched.studies.site_sweep.axes`: the axes (``--vary``), checked, and the points,
  their cartesian product, each a changed site document and the run options;
- :mod:`tapesched.studies.site_sweep.points`: one point replayed, its metrics, and the
  cache of points beside ``--out``;
- :mod:`tapesched.studies.site_sweep.sweep_file`: the sweep file (``tapesched.sweep/1``);
- :mod:`tapesched.studies.site_sweep.report`: the experiment and its files.
"""
