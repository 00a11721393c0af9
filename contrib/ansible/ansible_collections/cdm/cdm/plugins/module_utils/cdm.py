# Shared by the cdm modules: running `cdm --json` on the managed host, and cdm's
# messages as Ansible failures.
# Copyright (c) 2026 The cdm authors; MIT License.
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

# Options every module takes: which cdm, which store, which configuration.
COMMON_ARGS = dict(
    cdm=dict(type="str", default="cdm"),
    root=dict(type="path"),
    config=dict(type="path"),
)


def cdm_message(stderr):
    """cdm's error lines without their 'cdm: ' prefix (warnings included)."""
    lines = [l[5:] if l.startswith("cdm: ") else l for l in stderr.strip().splitlines()]
    return "; ".join(l for l in lines if l) or "cdm failed"


def run_cdm(module, args, fail=True, want_json=True):
    """Run cdm with args; return (rc, parsed stdout or None, stderr).

    A failure (nonzero exit) fails the module with cdm's message unless fail is False.
    """
    p = module.params
    cmd = [p["cdm"]]
    if want_json:
        cmd.append("--json")
    if p.get("root"):
        cmd += ["--root", p["root"]]
    if p.get("config"):
        cmd += ["--config", p["config"]]
    cmd += [str(a) for a in args]
    rc, out, err = module.run_command(cmd)
    if rc != 0 and fail:
        module.fail_json(msg=cdm_message(err), rc=rc, cmd=cmd, stderr=err, stdout=out)
    data = None
    if want_json and out.strip():
        try:
            data = json.loads(out)
        except ValueError:
            module.fail_json(msg="cdm printed no JSON document", cmd=cmd, stdout=out, stderr=err)
    return rc, data, err


def list_installs(module):
    """Every install of the store, as `cdm list --json` gives them."""
    return run_cdm(module, ["list"])[1] or []


def spec_matches(spec, install, cuda=None):
    """Whether a version spec ('9.19', '9.19.0.56', '9.19.0.56-cuda13') names install.

    The same rule as cdm's: a spec names every version it is a prefix of, by whole
    components; an id names itself; cuda (when given) must match.
    """
    if cuda and int(install.get("cuda", 0)) != int(cuda):
        return False
    if spec == install.get("id"):
        return True
    version = install.get("version", "")
    if "-cuda" in spec:
        spec, _, want = spec.partition("-cuda")
        if str(install.get("cuda")) != want:
            return False
    return version == spec or version.startswith(spec + ".")


def text_diff(before, after):
    """Ansible's diff of two lists of lines."""
    return dict(before="".join(l + "\n" for l in before), after="".join(l + "\n" for l in after))
