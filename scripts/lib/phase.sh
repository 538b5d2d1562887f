# Sourced by scripts/test.sh, scripts/sanitize.sh and .ci/run: `phase NAME COMMAND...` runs COMMAND, prints its wall
# time and exit status, and appends "NAME<TAB>SECONDS<TAB>STATUS" to $PIMG_PHASES when that is set (.ci/run
# sets it and prints the table at the end, docs/ci.md).
phase() {
  local name=$1 start=$SECONDS status=0
  shift
  echo "== phase ${name}: started $(date -u +%H:%M:%S)"
  "$@" || status=$?
  echo "== phase ${name}: $((SECONDS - start)) s, exit ${status}"
  if [ -n "${PIMG_PHASES:-}" ]; then printf '%s\t%s\t%s\n' "$name" "$((SECONDS - start))" "$status" >>"$PIMG_PHASES"; fi
  return "$status"
}
