package library;

import java.time.LocalDate;
import java.time.temporal.ChronoUnit;

/** A book lent to a reader on one day and due back on another. */
public record Loan(Book book, String reader, LocalDate lent, LocalDate due) {
    /** Whole days past the due day on {@code today}; zero until then. */
    public long daysLate(LocalDate today) {
        return Math.max(0, ChronoUnit.DAYS.between(due, today));
    }
}
