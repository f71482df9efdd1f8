package library;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.LocalDate;
import org.junit.jupiter.api.Test;

class LibraryTest {
    private static final LocalDate MONDAY = LocalDate.of(2026, 3, 2);
    private static final Book DUNE = new Book("978-0441013593", "Dune");

    @Test
    void aBookDueTodayIsNotOverdue() {
        Library library = new Library(14);
        library.lend(DUNE, "ada", MONDAY);
        assertTrue(library.overdue(MONDAY.plusDays(14)).isEmpty());
    }

    @Test
    void aBookIsOverdueTheDayAfterItIsDue() {
        Library library = new Library(14);
        library.lend(DUNE, "ada", MONDAY);
        assertEquals(1, library.overdue(MONDAY.plusDays(15)).size());
    }

    @Test
    void feesCountEachDayLate() {
        Library library = new Library(14);
        library.lend(DUNE, "ada", MONDAY);
        assertEquals(75, library.fees("ada", MONDAY.plusDays(17)));
    }
}
