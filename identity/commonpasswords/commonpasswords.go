// Package commonpasswords is a list of commonly used passwords, shipped
// with the binary (see README.md for its origin and licences), that
// password policies refuse.
//
// It imports nothing.
package commonpasswords

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"strings"
	"sync"

	"golang.org/x/text/unicode/norm"
)

//go:embed passwords.txt.gz
var compressed []byte

// list is the decompressed set, built on first use (about 2 MB).
var list = sync.OnceValue(func() map[string]struct{} {
	zr, err := gzip.NewReader(bytes.NewReader(compressed))
	if err != nil {
		panic("commonpasswords: embedded list: " + err.Error())
	}
	set := make(map[string]struct{}, 40_101)
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		set[sc.Text()] = struct{}{}
	}
	if err := sc.Err(); err != nil {
		panic("commonpasswords: embedded list: " + err.Error())
	}
	return set
})

// Listed reports whether password, compared NFC-normalised and without
// regard to case, is on the list or is one listed password, or a run of at
// most four characters, repeated (passwordpassword, abcabcabcabcabc).
func Listed(password string) bool {
	p := strings.ToLower(norm.NFC.String(password))
	if _, ok := list()[p]; ok {
		return true
	}
	unit := period(p)
	if unit == p {
		return false
	}
	_, ok := list()[unit]
	return ok || len([]rune(unit)) <= 4
}

// period returns the shortest string whose repetition is s (s itself when
// it repeats nothing).
func period(s string) string {
	for n := 1; n <= len(s)/2; n++ {
		if len(s)%n == 0 && strings.Repeat(s[:n], len(s)/n) == s {
			return s[:n]
		}
	}
	return s
}
