#!/usr/bin/python
# Copyright (c) 2026 The cdm authors; MIT License.
from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: cdm_link
short_description: A project's link to a cuDNN version of cdm's store
extends_documentation_fragment: [cdm.cdm.cdm, cdm.cdm.cdm.state]
description:
  - Runs C(cdm link) or C(cdm unlink) on the managed host and reports cdm's own
    C(changed); in check mode with C(--dry-run), which says what would change and changes
    nothing. The history (C(cdm history), C(cdm rollback)) is the user's, kept in the
    user's state.
options:
  project:
    description: The project folder (it must exist).
    type: path
    required: true
  version:
    description: The version to link; omitted, the one in the project's C(.cudnn-version)
      pin file.
    type: str
  cuda:
    description: The CUDA major of the build variant, when several match.
    type: int
  name:
    description: The link's name (default the project's, or C([link] name)).
    type: str
  pin_exact:
    description: Write the install's full id to the pin file.
    type: bool
    default: false
  forget:
    description: With I(state=absent), also delete the pin file.
    type: bool
    default: false
"""

EXAMPLES = r"""
- cdm.cdm.cdm_link:
    project: /srv/models/resnet
    version: "9.19"
- cdm.cdm.cdm_link:
    project: /srv/models/old
    state: absent
"""

RETURN = r"""
id:
  description: The install the link names after the change (null when none).
  type: str
  returned: always
previous:
  description: The install it named before.
  type: str
  returned: always
cdm:
  description: What C(cdm link --json) or C(cdm unlink --json) printed (project, link,
    generation, pinned, drift, dry_run...).
  type: dict
  returned: always
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.cdm.cdm.plugins.module_utils.cdm import COMMON_ARGS, run_cdm, text_diff


def main():
    args = dict(
        project=dict(type="path", required=True),
        version=dict(type="str"),
        cuda=dict(type="int"),
        name=dict(type="str"),
        pin_exact=dict(type="bool", default=False),
        forget=dict(type="bool", default=False),
        state=dict(type="str", choices=["present", "absent"], default="present"),
    )
    args.update(COMMON_ARGS)
    module = AnsibleModule(argument_spec=args, supports_check_mode=True)
    p = module.params
    if p["state"] == "present":
        cmd = ["link", p["project"]]
        if p["version"]:
            cmd.append(p["version"])
        if p["cuda"]:
            cmd += ["--cuda", p["cuda"]]
        if p["name"]:
            cmd += ["--name", p["name"]]
        if p["pin_exact"]:
            cmd.append("--pin-exact")
    else:
        cmd = ["unlink", p["project"]] + (["--forget"] if p["forget"] else [])
    if module.check_mode:
        cmd.append("--dry-run")
    _, data, _ = run_cdm(module, cmd)
    changed = bool(data.get("changed"))
    result = dict(changed=changed, id=data.get("id"), previous=data.get("previous"), cdm=data)
    if changed:
        link = data.get("link")
        result["diff"] = text_diff(
            ["%s -> %s" % (link, data.get("previous") or "(none)")],
            ["%s -> %s" % (link, data.get("id") or "(none)")],
        )
    module.exit_json(**result)


if __name__ == "__main__":
    main()
