import numpy as np
import pytest

from perfstudy.design.schedules import DESIGNS, Schedule, schedule

# Table 2 of Bakshy & Frachtenberg (WWW 2015), H = 2 hosts, R = 2 requests per condition:
# rows (host, request, version, batch); the paper numbers batches from 1, we from 0.
TABLE_2 = {
    "unbalanced": [(0, 0, 0, 1), (0, 1, 0, 1), (1, 2, 1, 1), (1, 3, 1, 1)],
    "request_balanced": [(0, 0, 0, 1), (0, 1, 0, 1), (1, 0, 1, 1), (1, 1, 1, 1)],
    "host_balanced": [(0, 0, 0, 1), (1, 1, 0, 1), (0, 2, 1, 2), (1, 3, 1, 2)],
    "fully_balanced": [(0, 0, 0, 1), (1, 1, 0, 1), (0, 0, 1, 2), (1, 1, 1, 2)],
}


@pytest.mark.parametrize("design", DESIGNS)
def test_table_2(design):
    s = schedule(design, requests=2, hosts=2)
    rows = list(zip(s.host, s.request, s.version, s.batch + 1))
    assert rows == TABLE_2[design]


@pytest.mark.parametrize("design", DESIGNS)
@pytest.mark.parametrize("requests,hosts,repetitions", [(12, 4, 3), (7, 2, 1), (40, 8, 2)])
def test_generalised_structure(design, requests, hosts, repetitions):
    s = schedule(design, requests=requests, hosts=hosts, repetitions=repetitions)
    frame = s.to_frame()
    assert s.observations == 2 * requests * repetitions
    assert s.observations_per_condition == (requests * repetitions, requests * repetitions)
    for _, cond in frame.groupby("version"):
        # every request of a condition is repeated T times, on one host, in one batch
        per_request = cond.groupby("request")
        assert per_request.size().eq(repetitions).all()
        assert per_request["host"].nunique().eq(1).all()
        assert per_request["batch"].nunique().eq(1).all()
        assert cond["request"].nunique() == requests
    hosts_by_version = frame.groupby("version")["host"].apply(set)
    same_hosts = hosts_by_version[0] == hosts_by_version[1]
    same_requests = set(frame.request[frame.version == 0]) == set(frame.request[frame.version == 1])
    assert same_hosts == (design in ("host_balanced", "fully_balanced"))
    assert same_requests == (design in ("request_balanced", "fully_balanced"))
    assert frame.host.nunique() == hosts
    # a host never runs both versions in the same batch
    assert frame.groupby(["host", "batch"])["version"].nunique().eq(1).all()


def test_gamma_levels_follow_service_instances():
    # request-balanced: the same request runs on two hosts, so its gamma is drawn twice
    s = schedule("request_balanced", requests=4, hosts=2)
    assert s.levels["request"][1] == 4
    assert s.levels["request_batch"][1] == 8
    # fully balanced: same request, same host, two batches: two gammas, one alpha
    s = schedule("fully_balanced", requests=4, hosts=2)
    assert s.levels["request"][1] == 4 and s.levels["request_batch"][1] == 8


def test_contrast_gives_difference_in_means():
    s = schedule("host_balanced", requests=5, hosts=5, repetitions=2)
    y = np.random.default_rng(0).normal(size=s.observations)
    assert s.contrast @ y == pytest.approx(y[s.version == 1].mean() - y[s.version == 0].mean())


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(design="balanced", requests=4, hosts=2), "design='balanced'"),
        (dict(design="unbalanced", requests=0, hosts=2), "requests=0"),
        (dict(design="unbalanced", requests=4, hosts=3), "hosts.*even"),
        (dict(design="request_balanced", requests=4, hosts=10), "hosts.*2 \\* requests"),
        (dict(design="host_balanced", requests=4, hosts=5), "hosts.*more hosts than requests"),
        (dict(design="fully_balanced", requests=4, hosts=0), "hosts=0"),
        (dict(design="fully_balanced", requests=4, hosts=2, repetitions=0), "repetitions=0"),
    ],
)
def test_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        schedule(**kwargs)


def test_non_integer_counts_are_type_errors():
    with pytest.raises(TypeError, match="requests"):
        schedule("unbalanced", requests=2.5, hosts=2)


def test_custom_schedule_validation():
    ok = dict(request=[0, 1], host=[0, 1], batch=[0, 0], version=[0, 1])
    Schedule(**ok)
    with pytest.raises(ValueError, match="mismatched lengths"):
        Schedule(**{**ok, "host": [0, 1, 2]})
    with pytest.raises(ValueError, match="version"):
        Schedule(**{**ok, "version": [0, 2]})
    with pytest.raises(ValueError, match="both conditions"):
        Schedule(**{**ok, "version": [1, 1]})
    with pytest.raises(TypeError, match="request"):
        Schedule(**{**ok, "request": [0.5, 1.0]})
    with pytest.raises(ValueError, match="non-negative"):
        Schedule(**{**ok, "batch": [-1, 0]})
