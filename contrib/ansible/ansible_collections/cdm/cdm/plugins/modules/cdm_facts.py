#!/usr/bin/python
# Copyright (c) 2026 The cdm authors; MIT License.
from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: cdm_facts
short_description: What cdm has on a host, as facts
extends_documentation_fragment: [cdm.cdm.cdm]
description:
  - "Sets C(ansible_facts.cdm) from C(cdm list --json) (the installs, and the projects of
    this user that use each), C(cdm doctor --json) (its summary; a failing check is a fact,
    not a failure of this module) and, where the command exists, C(cdm default --json).
    Changes nothing."
options:
  doctor:
    description: Also run the doctor (it loads cuDNN, which takes a few seconds).
    type: bool
    default: true
"""

EXAMPLES = r"""
- cdm.cdm.cdm_facts:
- debug:
    msg: "{{ ansible_facts.cdm.installs | map(attribute='id') | list }}"
"""

RETURN = r"""
ansible_facts:
  description: "cdm.installs, cdm.projects (each a project and the id it uses), cdm.doctor
    (ok, checks, failed, report), cdm.default."
  type: dict
  returned: always
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.cdm.cdm.plugins.module_utils.cdm import COMMON_ARGS, run_cdm


def doctor_summary(module):
    rc, data, err = run_cdm(module, ["doctor"], fail=False)
    if data is None:
        return dict(ok=False, error=err.strip())
    checks = []
    def walk(node):
        if isinstance(node, dict):
            if "status" in node and ("name" in node or "check" in node):
                checks.append(node)
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)
    walk(data)
    failed = [c.get("name") or c.get("check") for c in checks
              if str(c.get("status")).lower() in ("fail", "failed", "error")]
    return dict(ok=rc == 0, checks=len(checks), failed=failed, report=data)


def main():
    args = dict(doctor=dict(type="bool", default=True))
    args.update(COMMON_ARGS)
    module = AnsibleModule(argument_spec=args, supports_check_mode=True)
    _, installs, _ = run_cdm(module, ["list"])
    installs = installs or []
    projects = [dict(project=proj, id=i["id"]) for i in installs for proj in i.get("projects", [])]
    facts = dict(installs=installs, projects=projects)
    if module.params["doctor"]:
        facts["doctor"] = doctor_summary(module)
    rc, default, _ = run_cdm(module, ["default"], fail=False)
    facts["default"] = default.get("default") if rc == 0 and isinstance(default, dict) else None
    module.exit_json(changed=False, ansible_facts=dict(cdm=facts))


if __name__ == "__main__":
    main()
