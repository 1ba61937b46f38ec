# shellcheck shell=sh
# Sourced by the golden test runners. expect_files LABEL UPDATE TMP FILE...: in the
# current case folder, compares each expected FILE with the fresh TMP/FILE, showing a
# diff, or with UPDATE = --update rewrites FILE; returns 1 if any differed.
expect_files() {
  _ef_label=$1 _ef_update=$2 _ef_tmp=$3
  shift 3
  _ef_ok=0
  for _ef_f in "$@"; do
    if [ "$_ef_update" = "--update" ]; then
      cp "$_ef_tmp/$_ef_f" "$_ef_f"
    elif ! diff -u "$_ef_f" "$_ef_tmp/$_ef_f" >"$_ef_tmp/diff" 2>&1; then
      echo "$_ef_label: $_ef_f differs:"
      head -60 "$_ef_tmp/diff"
      _ef_ok=1
    fi
  done
  return $_ef_ok
}
