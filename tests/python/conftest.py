"""pytest's settings for the kbench package's tests: Hypothesis runs a fixed number of
examples without deadlines (timings are not what these tests check), derandomized so that a
run is the same every time CTest runs it."""
from hypothesis import HealthCheck, settings

settings.register_profile("kbench", max_examples=300, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("kbench")
