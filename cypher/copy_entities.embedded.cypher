COPY Entity FROM $rows
