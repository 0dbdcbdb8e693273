"""What is asked of the platform: generated file requests and those read from a CSV trace.

- :mod:`.workload`: Poisson requests for log-uniform files under the Blue Waters paper's schemes;
- :mod:`.requests_csv`: file requests from a CSV trace (``tapesched simulate --workload``).
"""
