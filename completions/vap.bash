# vap shell completion, generated from the command tree by `vap completion`. Do not edit.
# bash: source this file, or copy it to /etc/bash_completion.d/vap
_vap_paths='|vap|vap auth|vap auth login|vap auth status|vap auth logout|vap config|vap config list|vap config get|vap config set|vap agents|vap agents list|vap agents create|vap agents get|vap agents update|vap agents delete|vap agents versions|vap agents rollback|vap agents tools|vap agents voice|vap voices|vap voices list|vap voices preview|vap contact-lists|vap contact-lists list|vap contact-lists create|vap contact-lists get|vap contact-lists update-schema|vap contacts|vap contacts list|vap contacts import|vap import-jobs|vap import-jobs list|vap import-jobs get|vap import-jobs cancel|vap import-jobs watch|vap emulator|vap emulator start|vap api|vap completion|'
_vap() {
  local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"
  local path="vap" w i words
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="${COMP_WORDS[i]}"
    case "$w" in -*) continue ;; esac
    [[ "$_vap_paths" == *"|$path $w|"* ]] && path="$path $w"
  done
  case "$path $prev" in
    *' --profile') COMPREPLY=(); return ;;
    *' --base-url') COMPREPLY=(); return ;;
    *' -o') COMPREPLY=($(compgen -W 'table json ndjson tsv' -- "$cur")); return ;;
    *' --output') COMPREPLY=($(compgen -W 'table json ndjson tsv' -- "$cur")); return ;;
    *' --query') COMPREPLY=(); return ;;
    'vap agents list --search') COMPREPLY=(); return ;;
    'vap agents list --limit') COMPREPLY=(); return ;;
    'vap agents list --page') COMPREPLY=(); return ;;
    'vap agents create --name') COMPREPLY=(); return ;;
    'vap agents create --instructions') COMPREPLY=(); return ;;
    'vap agents create --instructions-file') COMPREPLY=(); return ;;
    'vap agents create --engine') COMPREPLY=($(compgen -W 'realtime pipeline speech-to-speech' -- "$cur")); return ;;
    'vap agents create --variable') COMPREPLY=(); return ;;
    'vap agents create --description') COMPREPLY=(); return ;;
    'vap agents create --tag') COMPREPLY=(); return ;;
    'vap agents update --name') COMPREPLY=(); return ;;
    'vap agents update --instructions') COMPREPLY=(); return ;;
    'vap agents update --instructions-file') COMPREPLY=(); return ;;
    'vap agents update --variable') COMPREPLY=(); return ;;
    'vap agents update --description') COMPREPLY=(); return ;;
    'vap agents update --tag') COMPREPLY=(); return ;;
    'vap agents update --engine') COMPREPLY=($(compgen -W 'realtime pipeline speech-to-speech' -- "$cur")); return ;;
    'vap agents versions --limit') COMPREPLY=(); return ;;
    'vap agents versions --page') COMPREPLY=(); return ;;
    'vap agents rollback --reason') COMPREPLY=(); return ;;
    'vap agents tools --set') COMPREPLY=(); return ;;
    'vap agents voice --set') COMPREPLY=(); return ;;
    'vap agents voice --language') COMPREPLY=(); return ;;
    'vap voices list --language') COMPREPLY=(); return ;;
    'vap voices preview -O') COMPREPLY=(); return ;;
    'vap voices preview --output-file') COMPREPLY=(); return ;;
    'vap contact-lists list --limit') COMPREPLY=(); return ;;
    'vap contact-lists list --page') COMPREPLY=(); return ;;
    'vap contact-lists create --name') COMPREPLY=(); return ;;
    'vap contact-lists create --field') COMPREPLY=(); return ;;
    'vap contact-lists create --schema-file') COMPREPLY=(); return ;;
    'vap contact-lists create --from-csv') COMPREPLY=(); return ;;
    'vap contact-lists create --sample') COMPREPLY=(); return ;;
    'vap contact-lists update-schema --field') COMPREPLY=(); return ;;
    'vap contact-lists update-schema --schema-file') COMPREPLY=(); return ;;
    'vap contact-lists update-schema --sample') COMPREPLY=(); return ;;
    'vap contacts list --search') COMPREPLY=(); return ;;
    'vap contacts list --limit') COMPREPLY=(); return ;;
    'vap contacts list --page') COMPREPLY=(); return ;;
    'vap contacts import --format') COMPREPLY=($(compgen -W 'csv json' -- "$cur")); return ;;
    'vap contacts import --delimiter') COMPREPLY=(); return ;;
    'vap contacts import --map') COMPREPLY=(); return ;;
    'vap contacts import --default-country') COMPREPLY=(); return ;;
    'vap contacts import --errors-file') COMPREPLY=(); return ;;
    'vap contacts import --batch-size') COMPREPLY=(); return ;;
    'vap contacts import --concurrency') COMPREPLY=(); return ;;
    'vap contacts import --state-file') COMPREPLY=(); return ;;
    'vap contacts import --file-url') COMPREPLY=(); return ;;
    'vap contacts import --file-format') COMPREPLY=($(compgen -W 'csv json' -- "$cur")); return ;;
    'vap contacts import --timeout') COMPREPLY=(); return ;;
    'vap import-jobs list --list') COMPREPLY=(); return ;;
    'vap import-jobs list --status') COMPREPLY=($(compgen -W 'pending processing completed failed cancelled' -- "$cur")); return ;;
    'vap import-jobs list --limit') COMPREPLY=(); return ;;
    'vap import-jobs list --page') COMPREPLY=(); return ;;
    'vap import-jobs watch --interval') COMPREPLY=(); return ;;
    'vap import-jobs watch --timeout') COMPREPLY=(); return ;;
    'vap emulator start --port') COMPREPLY=(); return ;;
    'vap emulator start --host') COMPREPLY=(); return ;;
    'vap emulator start --org') COMPREPLY=(); return ;;
    'vap emulator start --time-scale') COMPREPLY=(); return ;;
    'vap emulator start --data-dir') COMPREPLY=(); return ;;
    'vap emulator start --seed') COMPREPLY=(); return ;;
    'vap api -d') COMPREPLY=(); return ;;
    'vap api --data') COMPREPLY=(); return ;;
  esac
  case "$path" in
    'vap') words='auth config agents voices contact-lists contacts import-jobs emulator api completion' ;;
    'vap auth') words='login status logout' ;;
    'vap auth login') words='--with-key --no-verify' ;;
    'vap auth status') words='' ;;
    'vap auth logout') words='' ;;
    'vap config') words='list get set' ;;
    'vap config list') words='' ;;
    'vap config get') words='' ;;
    'vap config set') words='' ;;
    'vap agents') words='list create get update delete versions rollback tools voice' ;;
    'vap agents list') words='--search --limit --page --all' ;;
    'vap agents create') words='--name --instructions --instructions-file --engine --variable --description --tag' ;;
    'vap agents get') words='' ;;
    'vap agents update') words='--name --instructions --instructions-file --variable --clear-variables --description --tag --clear-tags --engine' ;;
    'vap agents delete') words='' ;;
    'vap agents versions') words='--limit --page --all' ;;
    'vap agents rollback') words='--reason' ;;
    'vap agents tools') words='--set' ;;
    'vap agents voice') words='--set --language' ;;
    'vap voices') words='list preview' ;;
    'vap voices list') words='--language' ;;
    'vap voices preview') words='-O --output-file' ;;
    'vap contact-lists') words='list create get update-schema' ;;
    'vap contact-lists list') words='--limit --page --all' ;;
    'vap contact-lists create') words='--name --field --schema-file --from-csv --sample --dry-run' ;;
    'vap contact-lists get') words='' ;;
    'vap contact-lists update-schema') words='--field --schema-file --sample --dry-run' ;;
    'vap contacts') words='list import' ;;
    'vap contacts list') words='--search --limit --page --all' ;;
    'vap contacts import') words='--format --delimiter --map --default-country --dry-run --errors-file --batch-size --concurrency --resume --state-file --force --allow-invalid --no-progress --file-url --file-format --wait --timeout' ;;
    'vap import-jobs') words='list get cancel watch' ;;
    'vap import-jobs list') words='--list --status --limit --page --all' ;;
    'vap import-jobs get') words='' ;;
    'vap import-jobs cancel') words='' ;;
    'vap import-jobs watch') words='--interval --timeout' ;;
    'vap emulator') words='start' ;;
    'vap emulator start') words='--port --host --org --time-scale --data-dir --seed --allow-loopback-urls --log' ;;
    'vap api') words='GET POST PUT PATCH DELETE get post put patch delete -d --data' ;;
    'vap completion') words='bash zsh fish' ;;
  esac
  COMPREPLY=($(compgen -W "$words --profile --base-url -o --output --json --query -q --quiet --no-color --no-input -y --yes --verbose -h --help" -- "$cur"))
}
complete -o default -F _vap vap
