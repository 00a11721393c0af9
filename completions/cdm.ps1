# PowerShell completion for cdm (Windows PowerShell 5.1 and pwsh 7). Load it from $PROFILE:
#   . <path>\cdm.ps1
# Candidates come from `cdm complete`; the word being completed goes as --current=WORD
# because Windows PowerShell drops empty arguments to native programs.
Register-ArgumentCompleter -Native -CommandName @('cdm', 'cdm.exe') -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)
    # The words before the one under the cursor, without the program name.
    $words = @($commandAst.CommandElements | Select-Object -Skip 1 |
        Where-Object { $_.Extent.EndOffset -lt $cursorPosition } |
        ForEach-Object { $_.Extent.Text })
    $found = @(& cdm complete "--current=$wordToComplete" -- @words 2>$null)
    foreach ($candidate in $found) {
        if ($candidate) {
            [System.Management.Automation.CompletionResult]::new($candidate, $candidate,
                'ParameterValue', $candidate)
        }
    }
}
