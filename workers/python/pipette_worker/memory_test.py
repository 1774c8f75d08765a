"""Memory readings from /proc (Linux)."""

import unittest

from pipette_worker.memory import MemoryReadError, parse_proc_status, read_memory


class MemoryTest(unittest.TestCase):
    def test_parses_the_status_lines_in_bytes(self):
        self.assertEqual(parse_proc_status("Name:\tx\nVmHWM:\t 2048 kB\nVmRSS:\t 1024 kB\n"),
                         (1024 * 1024, 2048 * 1024))
        with self.assertRaises(MemoryReadError):
            parse_proc_status("VmRSS:\t1024 kB\n")

    def test_reads_this_process(self):
        rss, hwm = read_memory()
        self.assertGreater(rss, 0)
        self.assertGreaterEqual(hwm, rss)


if __name__ == "__main__":
    unittest.main()
