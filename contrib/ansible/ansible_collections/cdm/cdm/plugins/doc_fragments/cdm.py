# The options every cdm module takes (module_utils/cdm.py COMMON_ARGS).
# Copyright (c) 2026 The cdm authors; MIT License.
from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    DOCUMENTATION = r"""
options:
  cdm:
    description: The cdm program on the managed host.
    type: str
    default: cdm
  root:
    description: The store (C(--root)); default cdm's own choice (C(CDM_ROOT), C([store] root)).
    type: path
  config:
    description: cdm's configuration file (C(--config)).
    type: path
"""

    # Whether the thing is there (present) or not (absent).
    STATE = r"""
options:
  state:
    description: Whether it should be there.
    type: str
    choices: [present, absent]
    default: present
"""
