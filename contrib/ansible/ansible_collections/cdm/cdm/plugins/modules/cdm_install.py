#!/usr/bin/python
# Copyright (c) 2026 The cdm authors; MIT License.
from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: cdm_install
short_description: A cuDNN version in cdm's store, installed or removed
extends_documentation_fragment: [cdm.cdm.cdm, cdm.cdm.cdm.state]
description:
  - Runs C(cdm install) or C(cdm remove) on the managed host and reports cdm's own
    C(changed). Check mode reads C(cdm list) and changes nothing.
options:
  version:
    description: A version (C(9.19), C(9.19.0.56)) found in C([install] sources) or
      downloaded from C([fetch] base). One of I(version) and I(archive).
    type: str
  archive:
    description: A cuDNN archive on the managed host (.tar.xz, .zip, .tgz).
    type: path
  cuda:
    description: The CUDA major of the build variant.
    type: int
  sha256:
    description: The archive must have this SHA-256.
    type: str
  force:
    description: Present, replace an install of the same id made from another archive;
      absent, unlink the projects that use it first.
    type: bool
    default: false
"""

EXAMPLES = r"""
- cdm.cdm.cdm_install:
    version: "9.19"
    cuda: 13
- cdm.cdm.cdm_install:
    archive: /srv/cudnn/cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz
- cdm.cdm.cdm_install:
    version: 8.9.7.29
    state: absent
"""

RETURN = r"""
id:
  description: The install's id (present), or the one removed.
  type: str
  returned: when it exists or was removed
cdm:
  description: What C(cdm install --json) or C(cdm remove --json) printed.
  type: dict
  returned: when cdm ran
"""

import hashlib

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.cdm.cdm.plugins.module_utils.cdm import (
    COMMON_ARGS,
    list_installs,
    run_cdm,
    spec_matches,
    text_diff,
)


def archive_sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def main():
    args = dict(
        version=dict(type="str"),
        archive=dict(type="path"),
        cuda=dict(type="int"),
        sha256=dict(type="str"),
        force=dict(type="bool", default=False),
        state=dict(type="str", choices=["present", "absent"], default="present"),
    )
    args.update(COMMON_ARGS)
    module = AnsibleModule(
        argument_spec=args,
        mutually_exclusive=[["version", "archive"]],
        required_one_of=[["version", "archive"]],
        supports_check_mode=True,
    )
    p = module.params
    installs = list_installs(module)
    before = sorted(i["id"] for i in installs)

    if p["archive"]:
        try:
            digest = archive_sha256(p["archive"])
        except OSError as e:
            module.fail_json(msg="cannot read the archive '%s': %s" % (p["archive"], e))
        matching = [i for i in installs if i.get("sha256") == digest]
    else:
        matching = [i for i in installs if spec_matches(p["version"], i, p["cuda"])]

    result = dict(changed=False)
    if p["state"] == "present":
        what = p["archive"] or p["version"]
        if matching and not p["force"]:
            result["id"] = matching[-1]["id"]  # list is by version: the newest last
        elif module.check_mode:
            result["changed"] = True
        else:
            cmd = ["install", what]
            if p["cuda"]:
                cmd += ["--cuda", p["cuda"]]
            if p["sha256"]:
                cmd += ["--sha256", p["sha256"]]
            if p["force"]:
                cmd.append("--force")
            _, data, _ = run_cdm(module, cmd)
            result.update(changed=bool(data.get("changed")), id=data.get("id"), cdm=data)
    else:
        if not matching:
            pass
        elif p["archive"] or len(matching) == 1 or p["cuda"]:
            gone = matching if p["archive"] else matching[:1]
            result["changed"] = True
            if not module.check_mode:
                for i in gone:
                    cmd = ["remove", i["id"]] + (["--force"] if p["force"] else [])
                    _, data, _ = run_cdm(module, cmd)
                    result.update(id=data.get("id"), cdm=data)
        else:
            module.fail_json(
                msg="'%s' names %d installs (%s); give cuda or a full id"
                % (p["version"], len(matching), ", ".join(i["id"] for i in matching))
            )
    if result["changed"]:
        if module.check_mode:
            after = before + ["(%s)" % (p["archive"] or p["version"])] if p["state"] == "present" \
                else [i for i in before if i not in [m["id"] for m in matching]]
        else:
            after = sorted(i["id"] for i in list_installs(module))
        result["diff"] = text_diff(before, after)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
