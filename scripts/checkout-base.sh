#!/bin/bash
# Make (or refresh) the worktree of the unpatched base kernel.
# Usage: [BASE=6.1] scripts/checkout-base.sh
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/lib/source.sh
. "$REPO_ROOT/scripts/lib/source.sh"
# shellcheck source=scripts/lib/kernels.sh
. "$REPO_ROOT/scripts/lib/kernels.sh"
no_args "$0" "$@"
load_base

ref=$(base_ref)
tree=$(tree_dir base)
if [ ! -d "$tree/.git" ] && [ ! -f "$tree/.git" ]; then
	add_worktree "$tree" "$ref"
elif [ "$(git -C "$tree" rev-parse HEAD)" != "$ref" ]; then
	git -C "$tree" checkout -q --detach "$ref"
fi
msg "base tree: $tree at $(git -C "$tree" rev-parse --short HEAD)"
