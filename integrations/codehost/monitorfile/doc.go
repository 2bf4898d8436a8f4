// Package monitorfile reads a repository's .monitor.yml (spec 2 B): the
// models its files hold, each with a glob of their paths, a framework and
// what to register them as, and the globs themselves (Match: * and ?
// within a folder, [..] classes, **/ for any number of folders). Parse
// never panics and returns every problem it finds; a file with any is
// not used.
//
// It imports nothing of Vigil: the code-host packages import it.
package monitorfile
