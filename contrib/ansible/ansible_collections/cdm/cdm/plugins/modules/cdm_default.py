#!/usr/bin/python
# Copyright (c) 2026 The cdm authors; MIT License.
from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: cdm_default
short_description: The cuDNN version a user has outside any project
extends_documentation_fragment: [cdm.cdm.cdm, cdm.cdm.cdm.state]
description:
  - I(state=absent) forgets the default (C(--unset)), and what was persisted.
  - Runs C(cdm default) on the managed host (the user's own choice, kept in the user's
    state, never in the store) and reports cdm's own C(changed); in check mode with
    C(--dry-run).
options:
  version:
    description: The version to make the default (I(state=present)).
    type: str
  persist:
    description: Also give it to new sessions' environment (C(--persist)).
    type: bool
    default: false
"""

EXAMPLES = r"""
- cdm.cdm.cdm_default:
    version: "9.19"
    persist: true
"""

RETURN = r"""
default:
  description: The default after the change.
  returned: always
cdm:
  description: What C(cdm default --json) printed (default, previous, persisted,
    persisted_in).
  type: dict
  returned: always
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.cdm.cdm.plugins.module_utils.cdm import COMMON_ARGS, run_cdm, text_diff


def main():
    args = dict(
        version=dict(type="str"),
        persist=dict(type="bool", default=False),
        state=dict(type="str", choices=["present", "absent"], default="present"),
    )
    args.update(COMMON_ARGS)
    module = AnsibleModule(
        argument_spec=args,
        required_if=[["state", "present", ["version"]]],
        supports_check_mode=True,
    )
    p = module.params
    if p["state"] == "present":
        cmd = ["default", p["version"]] + (["--persist"] if p["persist"] else [])
    else:
        cmd = ["default", "--unset"]
    if module.check_mode:
        cmd.append("--dry-run")
    _, data, _ = run_cdm(module, cmd)
    changed = bool(data.get("changed"))
    result = dict(changed=changed, default=data.get("default"), cdm=data)
    if changed:
        result["diff"] = text_diff(
            ["default: %s" % (data.get("previous") or "(none)")],
            ["default: %s" % (data.get("default") or "(none)")],
        )
    module.exit_json(**result)


if __name__ == "__main__":
    main()
