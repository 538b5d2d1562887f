#!/usr/bin/env bash
# Renders each family's report of a database to HTML (pimg-tune report writes it beside the markdown)
# and takes a screenshot of its first screen with headless Chromium, as a person opening it would see
# it (1400x900 CSS pixels). Prints, per family, where the summary table ends.
# Usage: scripts/report-screenshots.sh DB OUT_DIR [FAMILY...]   (default: every family in DB)
set -euo pipefail
db=${1:?usage: $0 DB OUT_DIR [FAMILY...]}
out=${2:?usage: $0 DB OUT_DIR [FAMILY...]}
shift 2
here=$(cd "$(dirname "$0")/.." && pwd)
tune=${PIMG_TUNE:-$here/build/tuner/app/pimg-tune}
chrome=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
[ -n "$chrome" ] || { echo "$0: chromium not found (apt-get install chromium)" >&2; exit 2; }
families=("$@")
if [ ${#families[@]} -eq 0 ]; then
  mapfile -t families < <(sqlite3 "file:$db?mode=ro" 'SELECT DISTINCT family FROM problems ORDER BY family')
fi
mkdir -p "$out"
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
       --disable-component-update --disable-sync --user-data-dir="$profile" --window-size=1400,900
       --hide-scrollbars)
for f in "${families[@]}"; do
  "$tune" report --db "$db" --family "$f" --out "$out/$f.md" >/dev/null
  page="file://$(cd "$out" && pwd)/$f.html"
  "$chrome" "${flags[@]}" --screenshot="$out/$f-first-screen.png" "$page" 2>/dev/null
  bottom=$("$chrome" "${flags[@]}" --dump-dom "$page" 2>/dev/null | grep -o 'data-summary-bottom="[0-9]*"' | grep -o '[0-9]*' || true)
  echo "$f: $out/$f-first-screen.png (summary table ends at ${bottom:-?} px; the first screen is 900)"
done
