package embeddedlog

// OnLinger makes c call f each time a Poll that has messages starts to
// wait for more, so that a test acts while the Poll lingers rather than
// after a sleep that may end before or after it.
func OnLinger(c *Consumer, f func()) { c.lingering = f }
