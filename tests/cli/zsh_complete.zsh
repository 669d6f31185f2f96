# Used by completion_man_test.sh.
# usage: zsh -f zsh_complete.zsh <script> <word>...: what the completion function offers for the last word, with
# compadd/_describe/_files stubbed (they print instead of adding), outside a real completion widget.
script=$1; shift
compdef() { :; }
compadd() {
    local suffix="" 
    while (( $# )); do
        case $1 in
            (-S) suffix=$2; shift 2 ;;
            (--) shift; break ;;
            (-*) shift ;;
            (*) break ;;
        esac
    done
    local w; for w in "$@"; do print -r -- "$w$suffix"; done
}
_describe() { local -a items; items=("${(@P)2}"); local e; for e in $items; do print -r -- "${e%%:*}"; done }
_files() { print -r -- "<files>"; }
source "$script"
words=("$@")
CURRENT=$#
PREFIX=${words[CURRENT]}
_mcph | grep -- "^${PREFIX}" | tr '\n' ' ' | sed 's/ $//'
