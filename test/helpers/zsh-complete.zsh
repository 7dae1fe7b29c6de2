#!/usr/bin/env zsh
# usage: zsh -f zsh-complete.zsh COMPLETIONS_DIR LINE
# Completes LINE (the words typed, the cursor at its end) in an interactive zsh under zpty,
# with compinit and the completion file from COMPLETIONS_DIR, and prints each match.
zmodload zsh/zpty zsh/datetime || exit 2
dir=$1 line=$2
zpty z zsh -f -i
zpty -w z "PROMPT='' RPROMPT='' fpath=(${(q)dir} \$fpath); autoload -U compinit; compinit -u -D"
zpty -w z 'bindkey "^I" complete-word'
zpty -w z 'zstyle ":completion:*" list-grouped false; zstyle ":completion:*" insert-tab false'
# The marks are spelled so that the lines typed (which the terminal echoes) do not hold them.
zpty -w z $'__vap_mark() { print -r -- "<<vap-${:-done}>>" }'
zpty -w z 'comppostfuncs=( __vap_mark exit )'
# Every match the completion adds is printed as well as added (the real compadd does the matching).
zpty -w z $'compadd() { local -a __m; builtin compadd -O __m "$@"; local w; for w in $__m; do print -r -- "<<m${:-}>>$w"; done; builtin compadd "$@"; }'
zpty -w z "$line"$'\t'
out='' deadline=$(( EPOCHREALTIME + 20 ))
while (( EPOCHREALTIME < deadline )); do
  if zpty -r -t z chunk 2>/dev/null; then out+=$chunk; else sleep 0.02; fi
  [[ $out == *'<<vap-done>>'* ]] && break
done
zpty -d z
print -r -- ${out} | tr -d "\r" | sed -n "s/.*<<m>>//p"
