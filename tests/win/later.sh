# Windows scenarios whose commands come with other parts of cdm: they skip, saying so,
# until those commands are in this build.
. "$TESTS_DIR/win/lib.sh"

if has_command activate; then
  skip "activate for cmd, run by Wine's cmd /c, variables read back" "cdm activate is in this build, but its Wine scenario is not written yet"
  skip "activate for PowerShell" "no PowerShell under Wine; test on Windows (docs-windows-section.md)"
else
  skip "activate for cmd, run by Wine's cmd /c, variables read back" "cdm activate is not in this build yet"
  skip "activate for PowerShell" "cdm activate is not in this build yet"
fi
if has_command doctor; then
  skip "doctor loads a stand-in cudnn64_8.dll and calls cudnnGetVersion" "cdm doctor is in this build, but its Wine scenario is not written yet"
else
  skip "doctor loads a stand-in cudnn64_8.dll and calls cudnnGetVersion" "cdm doctor is not in this build yet"
fi

done_testing
